// Property order (integer keys first, ascending, then strings in insertion order), deleted and
// re-added keys, JSON of objects, getters and setters, arguments.
var o = { b: 1, a: 2, 10: 'x', 2: 'y', '-1': 'z', '01': 'w', 4294967295: 'big', 4294967294: 'max' };
print('keys: ' + Object.keys(o).join(','));
delete o.b; o.b = 3; o[1] = 'one'; print('after delete and re-add: ' + Object.keys(o).join(','));
var seen = []; for (var p in o) seen.push(p); print('for-in: ' + seen.join(','));
print('JSON: ' + JSON.stringify(o));
function F() { this.z = 1; this.a = 2; } F.prototype.inherited = 1;
var f = new F(); f[0] = 0; var ks = []; for (var q in f) ks.push(q); print('own then inherited: ' + ks.join(','));
print('array own names: ' + Object.getOwnPropertyNames([1, 2]).join(',') + '; string: ' + Object.getOwnPropertyNames('ab').join(','));
print(JSON.stringify({ a: undefined, b: function () {}, c: [undefined, function () {}], d: new Date(0), e: 'é"\\\u0007' }));
print(JSON.stringify({ a: [1, { b: 2 }] }, null, 2));
print(JSON.stringify({ a: 1, b: [1, 2] }, null, '--') + JSON.stringify({ a: 1, b: 2, c: 3 }, ['c', 'a']));
print(JSON.stringify({ a: 5, b: 's' }, function (k, v) { return typeof v === 'number' ? v * 2 : v; }));
try { JSON.parse('{bad'); } catch (e) { print('parse error: ' + e.name); }
try { var cyc = {}; cyc.c = cyc; JSON.stringify(cyc); } catch (e) { print('cycle: ' + e.name); }
print(JSON.stringify(JSON.parse('{"__proto__": 1, "a": [1, "2", null, true], "b": {"c": -0}}')));
var acc = { _v: 1, get v() { return this._v * 2; }, set v(x) { this._v = x; } }; acc.v = 5;
print('accessor: ' + acc.v + ' ' + JSON.stringify(acc) + ' ' + (typeof Object.getOwnPropertyDescriptor(acc, 'v').get));
var ro = {}; Object.defineProperty(ro, 'x', { get: function () { return 7; }, enumerable: false });
print('getter only: ' + ro.x + ' ' + Object.keys(ro).length + ' ' + JSON.stringify(ro)); ro.x = 9; print('still ' + ro.x);
try { (function () { 'use strict'; ro.x = 1; })(); } catch (e) { print('strict set: ' + e.name); }
var fr = Object.freeze({ a: 1 }); try { (function () { 'use strict'; fr.a = 2; })(); } catch (e) { print('frozen: ' + e.name + ' ' + Object.isFrozen(fr)); }
function g(a, b) { arguments[0] = 9; b = 8; return a + ' ' + arguments[1] + ' ' + arguments.length + ' ' + Object.prototype.toString.call(arguments); }
print('arguments mapped: ' + g(1, 2, 3));
function h(a) { 'use strict'; arguments[0] = 9; return a; } print('strict arguments: ' + h(1));
function k() { return Array.prototype.slice.call(arguments, 1).join(); } print('slice: ' + k(1, 2, 3) + ' ' + k.length + ' ' + (function (a, b) {}).length);
print('to strings: ' + Object.prototype.toString.call(null) + Object.prototype.toString.call([]) + Object.prototype.toString.call(new Date(0)) + Object.prototype.toString.call(/x/) + Object.prototype.toString.call(JSON) + Object.prototype.toString.call(Math));
print(String(function named() { return 1; }) + ' | ' + String(Math.max) + ' | ' + String(function () {}.bind(null)));
