// run: --for 1m --cloud none
// The maker's error reference: every error is an object with code and message, the message
// starting with the code ({code: 'ESR0202', message: 'ESR0202 No storage space'}), checked with
// try/catch as its storage example does; uncaught ones reach app.setErrorHandler with the same
// object. Argument errors stay TypeError/RangeError and name the argument, with a code of the
// function call (ESR05xx) or type conversion (ESR07xx) family; a modem query in airplane mode
// is rejected with the modem family's ESR0410; location's minInterval over timeout too is coded.
function show(what, e) {
  var ok = typeof e.code === 'string' && /^ESR\d{4}$/.test(e.code) && e.message.indexOf(e.code + ' ') === 0;
  print(what + ': ' + (ok ? 'coded' : 'NOT CODED') + ' ' + e.name + ' ' + e.message);
}
app.setErrorHandler(function (type, error) {
  if (error.code === undefined) {
    // what the app threw itself reaches the handler as it was thrown
    print('error handler (type ' + typeof type + '): the app\'s own ' + error.name + ': ' + error.message);
  } else {
    show('error handler (type ' + typeof type + ')', error);
  }
});

// The reference's storage example, run until the store is full.
var RECORD_ID_MY_DATA = 0;
var myData = { foo: new Array(8000).join('b') };
var saved = 0;
for (;;) {
  try {
    storage.save(RECORD_ID_MY_DATA + saved, myData);
    saved++;
  } catch (error) {
    if (error.code === 'ESR0202') { // ESR0202 = No storage space
      print('out of space after ' + saved + ' records');
    }
    show('storage.save', error);
    break;
  }
}
storage.clear();

var attempts = [
  ['sync.setSyncPeriod(5)', function () { sync.setSyncPeriod(5); }],
  ['sync.setSyncPeriod("soon")', function () { sync.setSyncPeriod('soon'); }],
  ['storage.save("x", 1)', function () { storage.save('x', 1); }],
  ['timers.single(-1, f)', function () { timers.single(-1, function () {}); }],
  ['cloud.enqueue(f)', function () { cloud.enqueue('t', function () {}); }],
];
attempts.forEach(function (a) {
  try {
    a[1]();
    print(a[0] + ': accepted');
  } catch (e) {
    show(a[0], e);
  }
});

modem.setAirplaneMode(true);
modem.getStatus().catch(function (e) { show('modem.getStatus in airplane mode', e); });
location.startUpdates(function () {}, { minInterval: 10, timeout: 5 })
  .catch(function (e) { show('location.startUpdates', e); });
timers.single('1s', function () {
  throw new Error('thrown by the app');
});
timers.single('2s', function () {
  storage.save(-1, 0);
});
