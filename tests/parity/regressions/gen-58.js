// Generated program 58 (bindings-ts/test/programGenerator.ts), minimised: JerryScript wrote
// -1.1102230246251566e-16 for -2^-53, not the closest of the 17-digit forms (...565e-16).
try { var v11 = [-1, (0.1).toPrecision(7), (-1 / 9007199254740993), (1/3).toString(36)]; v11.sort(function (a, b) { return a < b ? -1 : a > b ? 1 : 0; }); print('v11 ' + JSON.stringify(v11)); } catch (e) { print('line threw ' + e.name); }
