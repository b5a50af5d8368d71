// run: --api 0.0.9 --for 10s --cloud none
// The error reference against firmware 0.0.9: the errors the spec lists as uncoded there keep
// their old wording and no code (storage.save's "Not enough storage space"), every other error
// is coded as in later versions: argument errors (ESR0501, ESR0701) and the modem's airplane
// mode (ESR0410, on lte, the modem's name in 0.0.9).
function show(what, e) {
  print(what + ': code ' + e.code + ', ' + e.name + ': ' + e.message);
}
var data = { foo: new Array(4000).join('b') };
var saved = 0;
for (;;) {
  try {
    storage.save(saved, data);
    saved++;
  } catch (error) {
    show('storage.save after ' + saved + ' records', error);
    break;
  }
}
storage.clear();
try { sync.setSyncPeriod(5); } catch (e) { show('sync.setSyncPeriod(5)', e); }
try { storage.read('x'); } catch (e) { show('storage.read("x")', e); }
lte.setAirplaneMode(true);
lte.getInfo().then(null, function (e) { show('lte.getInfo in airplane mode', e); });
