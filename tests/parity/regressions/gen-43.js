// Generated program 43 (bindings-ts/test/programGenerator.ts), minimised: JerryScript wrote 17
// digits (1111992791193304100) where 16 read back (1111992791193304000).
try { var v3 = (function (n) { var c = n; return function (d) { c += d; return c; }; })((9007199254740993 * 123.456)); v3(123.456); print('v3 ' + String(v3(0.5))); } catch (e) { print('line threw ' + e.name); }
