// 2,000 strings in the default order (ToString and compare), five times.
var seed = 1, base = [];
for (var i = 0; i < 2000; i++) { seed = (seed * 1103515245 + 12345) % 2147483648; base.push('k' + (seed % 10007)); }
for (var r = 0; r < 5; r++) base.slice().sort();
print('sorted');
