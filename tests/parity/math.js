// Math at its edges and in ordinary use, Number conversions.
print([Math.max(), Math.min(), Math.max(NaN, 1), 1 / Math.max(-0, 0), 1 / Math.min(0, -0), Math.round(-0.5), 1 / Math.round(-0.4), Math.round(2.5), Math.round(0.49999999999999994), Math.pow(NaN, 0), Math.pow(1, Infinity), Math.atan2(0, -0), Math.atan2(-0, -0)].join(' '));
print([Math.sin(1e300), Math.cos(1e22), Math.exp(709.8), Math.log(0), Math.sqrt(-0), Math.acos(1.0000001), Math.atan(1e308), Math.pow(2, -1074), Math.pow(-8, 1 / 3), Math.floor(-0.5), Math.ceil(-0.5), 1 / Math.ceil(-0.5), Math.abs(-0)].join(' '));
var s = 0;
for (var i = 1; i < 200; i++) s += Math.sin(i * 0.37) + Math.cos(i * 1.3) + Math.exp(-i / 50) + Math.log(i) + Math.pow(i, 0.37) + Math.atan2(i, 7) + Math.tan(i / 100);
print('sum ' + s);
print([98 % -(1 / 3), 5.5 % 2, -5.5 % 2, 1e300 % 7, 0.3 % 0.1, 1 / (-4 % 2), 7 % 2.5, 4294967297.5 | 0, -1.5 % 1, 1e17 % 3, Math.pow(2, 70) % 10, -1 >>> 0, 1 << 31, 2147483648 | 0].join(' '));
print([parseInt('  -12px'), parseFloat('3.14abc'), 0.1 * 3, 9007199254740992 + 1, -7 % 3, 7 / 0, 1 / -0, Number('0x1F'), Number(' 12 '), Number('1e'), Number(''), parseInt('08'), parseInt('0x'), parseFloat('1e1000'), parseFloat('.5e-1x'), parseInt('123', 37), parseInt('z', 36)].join(' '));
