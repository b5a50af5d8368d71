// Dates: ISO text both ways, the ES2018 strings, UTC arithmetic, the edges of the time range.
var ts = [0, -1, 1709211909007, -62198755200000, -2208988800000, 253402300800000, 8.64e15, -8.64e15, 951782400000, NaN, -30610224000000];
for (var i = 0; i < ts.length; i++) {
  var d = new Date(ts[i]);
  print([String(d), d.toUTCString(), d.toDateString(), d.toTimeString(), d.toLocaleString(), isNaN(ts[i]) ? '-' : d.toISOString(), JSON.stringify(d), d.getUTCDay(), d.getTimezoneOffset()].join(' | '));
}
var iso = ['2024-02-29', '2024-02-29T13:05:09Z', '2024-02-29T13:05:09.123+02:00', '2024-02', '2024', '+002024-02-29T00:00:00Z', '-000001-01-01T00:00:00Z', '2024-02-29T13:05Z', '1970-01-01T00:00:00.000Z', '2024-02-29T13:05:09'];
for (var j = 0; j < iso.length; j++) print(iso[j] + ' -> ' + Date.parse(iso[j]) + ' ' + new Date(iso[j]).getTime());
print(new Date(2024, 0, 31, 25, 61).toISOString() + ' ' + new Date(0, 0).getFullYear() + ' ' + Date.UTC(99, 0) + ' ' + Date.UTC(2024, 1, 30) + ' ' + new Date(2020, 5).valueOf());
var dd = new Date(0); dd.setUTCMonth(13); dd.setUTCDate(0); print(dd.toISOString() + ' ' + dd.setUTCHours(-1) + ' ' + dd.getUTCFullYear());
try { new Date(NaN).toISOString(); } catch (e) { print('invalid toISOString: ' + e.name); }
print(new Date(8.64e15 + 1).getTime() + ' ' + Date.parse(new Date(1709211909000).toISOString()) + ' ' + typeof Date.now());
