// Generated program 28 (bindings-ts/test/programGenerator.ts), minimised: JerryScript's % was
// n - d * trunc(n / d), so 98 % -(1/3) gave 0 where ECMA-262 (and Duktape) give 5.44e-15.
try { var v6 = ['\u03a3\u0391', '1e3', (-(0.1)), (255 * 4294967296), '\u03a3\u0391'].map(function (x, i) { return typeof x === 'number' ? x * i : x + i; }).filter(function (x) { return x === x; }); print('v6 ' + v6.join('|')); } catch (e) { print('line threw ' + e.name); }
try { var v9 = [v6, ((-1 ^ -99.995) % (-(1/3)))].concat([]).reverse(); print('v9 ' + v9.join() + ' ' + v9.indexOf(2.5) + ' ' + v9.slice(2).length); } catch (e) { print('line threw ' + e.name); }
