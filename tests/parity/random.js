// Math.random: in [0, 1), well spread, the same numbers on both engines for the same device and
// boot (the simulator's world seed), and as a built-in should be.
var n = 5000, sum = 0, low = 0, seen = {}, repeats = 0, buckets = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
for (var i = 0; i < n; i++) {
  var x = Math.random();
  if (!(x >= 0 && x < 1)) print('out of range: ' + x);
  sum += x; if (x < 0.5) low++; buckets[Math.floor(x * 10)]++;
  if (seen[x]) repeats++; seen[x] = true;
}
print('mean within 0.48..0.52: ' + (sum / n > 0.48 && sum / n < 0.52) + ', halves balanced: ' + (Math.abs(low - n / 2) < 200) + ', repeats: ' + repeats);
print('every tenth between 400 and 600: ' + buckets.every(function (b) { return b > 400 && b < 600; }));
print('first draws after these: ' + [Math.random(), Math.random(), Math.random()].join(' '));
print(typeof Math.random + ' ' + Math.random.length + ' ' + Math.random.name + ' ' + Object.keys(Math).length + ' ' + Object.prototype.propertyIsEnumerable.call(Math, 'random'));
var shuffled = [1, 2, 3, 4, 5, 6, 7, 8].sort(function () { return Math.random() - 0.5; }); print('shuffle: ' + shuffled.join(','));
