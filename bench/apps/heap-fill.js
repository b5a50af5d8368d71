// Fills the heap the way apps usually do (an array of small objects and strings), printing how
// many rows it holds every 25 rows, until the device resets: the last line is the capacity.
var rows = [];
timers.single(10, function () {
  for (;;) {
    rows.push({ id: rows.length, name: 'asset-' + rows.length, rssi: -60 - (rows.length % 30) });
    if (rows.length % 25 === 0) print(rows.length);
  }
});
