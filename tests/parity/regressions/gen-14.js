// Generated program 14 (bindings-ts/test/programGenerator.ts), minimised: a function joined into
// a string showed Duktape's "function () { [ecmascript code] }" against JerryScript's text.
try { var v1 = (function (n) { var c = n; return function (d) { c += d; return c; }; })(1.5); v1((0 ^ 123.456)); print('v1 ' + String(v1(0.5))); } catch (e) { print('line threw ' + e.name); }
try { var v11 = [v1, ((9007199254740993 | -3.25) ^ (1 << 31))].concat([' 12 ', 0.1+0.2, 1]).reverse(); print('v11 ' + v11.join() + ' ' + v11.indexOf(-Infinity) + ' ' + v11.slice(2).length); } catch (e) { print('line threw ' + e.name); }
