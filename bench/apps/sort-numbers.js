// 2,000 numbers sorted with a comparator, five times (fresh copies): the engine's sort.
var seed = 1, base = [];
for (var i = 0; i < 2000; i++) { seed = (seed * 1103515245 + 12345) % 2147483648; base.push(seed % 10007); }
for (var r = 0; r < 5; r++) base.slice().sort(function (a, b) { return a - b; });
print('sorted');
