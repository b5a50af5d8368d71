// 2,000 numbers through toFixed(2), toPrecision(6) and toExponential(3).
var seed = 1, out = 0;
for (var i = 0; i < 2000; i++) {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  var v = (seed - 1073741824) / 997;
  out += v.toFixed(2).length + v.toPrecision(6).length + v.toExponential(3).length;
}
print('chars ' + out);
