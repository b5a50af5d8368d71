// Array.prototype.sort: stability, comparators that break the rules, holes and undefined.
function ids(list) { return list.map(function (o) { return o.i; }).join(','); }
var a = []; for (var i = 0; i < 12; i++) a.push({ k: i % 3, i: i });
print('ties kept in order: ' + ids(a.slice().sort(function (x, y) { return x.k - y.k; })));
print('ties, reversed key: ' + ids(a.slice().sort(function (x, y) { return y.k - x.k; })));
var big = []; for (var j = 0; j < 100; j++) big.push({ k: (j * 37) % 11, i: j });
print('100 with ties: ' + ids(big.sort(function (x, y) { return x.k - y.k; })));
print('default order: ' + [3, 1, 2, 10, 20, undefined, , 'a', null, 'B', -1].sort().join('|'));
print('always 0: ' + [5, 1, 4].sort(function () { return 0; }).join(','));
var calls = []; [5, 3, 8, 1, 9, 2].sort(function (x, y) { calls.push(x + '' + y); return x - y; });
print('comparator calls: ' + calls.join(' '));
print('boolean comparator: ' + [3, 1, 2, 5, 4, 7, 6, 9, 8, 0, 11, 10].sort(function (x, y) { return x > y; }).join(','));
print('NaN in the values: ' + [1, NaN, 3, 2].sort(function (x, y) { return x - y; }).join(','));
print('comparator returns NaN: ' + [2, 1, 3].sort(function () { return NaN; }).join(','));
print('comparator returns a string: ' + [2, 1, 3].sort(function () { return '1'; }).join(','));
print('comparator returns an object: ' + [2, 1, 3].sort(function () { return { valueOf: function () { return -1; } }; }).join(','));
try { [2, 1].sort(5); } catch (e) { print('non-function comparator: ' + e.name); }
var o = { 0: 'b', 1: 'a', 2: 'c', length: 3 }; Array.prototype.sort.call(o); print('array-like: ' + o[0] + o[1] + o[2]);
var holes = [3, , 1, undefined, 2]; holes.sort();
print('holes: ' + holes.length + ' ' + holes.join(',') + ' ' + (3 in holes) + ' ' + (4 in holes));
print('signed zeros: ' + [0, -0, -1, 1].sort(function (x, y) { return x - y; }).map(function (v) { return 1 / v; }).join(','));
var count = 0; var r = []; for (var k = 0; k < 50; k++) r.push((k * 7919) % 101);
r.sort(function (x, y) { count++; return x - y; }); print('comparisons for 50: ' + count);
print('strings by code unit: ' + ['b', 'a', 'B', 'A', '\u00e9', 'e', '\ud83d\ude00', '\uffff', ''].sort().join(','));
try { [3, 1, 2].sort(function (x) { if (x === 1) throw new Error('stop'); return 0; }); } catch (e) { print('comparator throws: ' + e.message); }
var arr = [3, 2, 1]; var same = arr.sort() === arr; print('returns the array: ' + same);
var inconsistent = []; for (var m = 0; m < 20; m++) inconsistent.push(m);
var seed = 7; inconsistent.sort(function () { seed = (seed * 31 + 11) % 97; return seed % 3 - 1; });
print('inconsistent comparator: ' + inconsistent.join(','));
var typed = new Int16Array([5, -1, 3, 0, 300, -300]); print('typed array default: ' + Array.prototype.join.call(typed.sort(), ','));
