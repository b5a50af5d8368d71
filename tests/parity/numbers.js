// Numbers as text: ToString, JSON, toFixed, toExponential, toPrecision, toString(radix).
var xs = [0, -0, 1, -1.5, 0.1 + 0.2, 1 / 3, 2 / 3, 1e21, 1e-7, 123456789012345680000, 5e-324, 1.7976931348623157e308, 0.000001, 100 / 7, -55.333333333333336, Math.PI, 9007199254740993, 1.005, 4.35, 2.5, 0.5, 1.25, 99.99, 9.995, 0.05];
for (var i = 0; i < xs.length; i++) {
  var x = xs[i];
  print(String(x) + ' ' + JSON.stringify(x) + ' ' + x.toFixed(2) + ' ' + x.toFixed(0) + ' ' + x.toExponential() + ' ' + x.toExponential(3) + ' ' + x.toPrecision(4) + ' ' + x.toPrecision(1));
}
for (var j = 0; j < xs.length; j++) print(xs[j].toFixed(20) + ' ' + xs[j].toPrecision(21) + ' ' + xs[j].toExponential(20));
for (var r = 2; r <= 36; r += 3) print(r + ': ' + xs.map(function (v) { return v.toString(r); }).join(' ').slice(0, 900));
print(JSON.stringify([-0, 1e21, 1e-7, 9007199254740993, NaN, Infinity, -Infinity]));
print(JSON.stringify(JSON.parse('[-0, 1e400, 12345678901234567890, 0.30000000000000004, 1E2, -1e-400]')) + ' ' + 1 / JSON.parse('-0'));
var bad = [function () { return (1).toFixed(101); }, function () { return (1).toFixed(-1); }, function () { return (1).toPrecision(0); }, function () { return (1).toPrecision(101); }, function () { return (1).toExponential(-1); }, function () { return (1).toString(1); }, function () { return (1).toString(37); }, function () { return Number.prototype.toFixed.call('1', 2); }];
for (var b = 0; b < bad.length; b++) { try { print(bad[b]()); } catch (e) { print(e.name + ': ' + e.message); } }
print((NaN).toFixed(2) + ' ' + (Infinity).toPrecision(2) + ' ' + (-Infinity).toExponential(2) + ' ' + (123).toPrecision() + ' ' + (1e21).toFixed(2) + ' ' + (NaN).toString(2) + ' ' + new Number(255).toString(16) + ' ' + (1).toFixed(100).length + ' ' + (255).toString(undefined));
var seed = 1, sum = 0;
for (var k = 0; k < 300; k++) {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  var v = (seed - 1073741824) / Math.pow(10, seed % 23) * (seed % 2 ? 1 : 1e-9);
  print(String(v) + ' ' + v.toFixed(seed % 21) + ' ' + v.toPrecision(1 + seed % 21) + ' ' + v.toExponential(seed % 21) + ' ' + v.toString(2 + seed % 35));
}
print('shortest: ' + [9007199254740993 * 123.456 + 123.456 + 0.5, -1 / 9007199254740992, 898997786922725.25, -111990908702941.625, 2 ** 60, 123e-20, 4.35 * 100, 1 / 3 * 3].join(' '));
print('replaced methods: ' + [(1).toFixed.name, (1).toFixed.length, (1).toString.length, [].sort.name, [].sort.length, String.fromCharCode.name, String.fromCharCode.length, Math.random.name, Math.random.length].join(' '));
