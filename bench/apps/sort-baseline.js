// The same 2,000 numbers as sort-numbers.js, made but not sorted: subtracted from its count.
var seed = 1, base = [];
for (var i = 0; i < 2000; i++) { seed = (seed * 1103515245 + 12345) % 2147483648; base.push(seed % 10007); }
for (var r = 0; r < 5; r++) base.slice();
print('made');
