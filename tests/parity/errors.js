// Errors: names, messages of the app's own errors, types of the engine's (their text is each
// engine's, docs/compiler.md "What still differs"), typed arrays and DataView.
var e = new Error('boom'); print([e.name, e.message, String(e), Object.keys(e).length, e instanceof Error, Object.prototype.toString.call(e), e.hasOwnProperty('message'), e.hasOwnProperty('name')].join('|'));
var t = new TypeError(); print(t.name + '|' + t.message + '|' + String(t) + '|' + new RangeError(undefined) + '|' + new Error(5).message + '|' + Error('y').message);
print(Error.prototype.toString.call({ name: 'N', message: 'M' }) + '|' + Error.prototype.toString.call({}) + '|' + Error.prototype.toString.call({ name: '', message: 'M' }));
var cases = [function () { null.x; }, function () { undefinedVar; }, function () { (void 0)(); }, function () { new Array(-1); }, function () { ({}).f(); }, function () { JSON.parse('{'); }, function () { [].reduce(function () {}); }, function () { decodeURI('%E0'); }, function () { throw { a: 1 }; }];
for (var i = 0; i < cases.length; i++) { try { cases[i](); print('no error'); } catch (x) { print(x instanceof Error ? x.name + ' ' + (x instanceof TypeError) + (x instanceof RangeError) + (x instanceof SyntaxError) + (x instanceof ReferenceError) + (x instanceof URIError) : JSON.stringify(x)); } }
function MyError(m) { this.message = m; } MyError.prototype = new Error(); MyError.prototype.name = 'MyError';
try { throw new MyError('mine'); } catch (x) { print(String(x) + ' ' + (x instanceof Error)); }
try { try { throw new Error('inner'); } finally { print('finally runs'); } } catch (x) { print('caught ' + x.message); }
var u8 = new Uint8Array([1, 2, 300, -1]); print(u8.length + ' ' + u8[2] + ' ' + u8[3] + ' ' + u8.byteLength + ' ' + Object.prototype.toString.call(u8));
var f32 = new Float32Array([1.1, 0.1]); print(f32[0] + ' ' + f32[1]);
var c8 = new Uint8ClampedArray([300, -5, 1.5, 2.5]); print(c8[0] + ' ' + c8[1] + ' ' + c8[2] + ' ' + c8[3]);
var buf = new ArrayBuffer(8); var dv = new DataView(buf); dv.setFloat32(0, 1.5); dv.setInt16(4, -2, true);
print(dv.getUint8(0) + ' ' + dv.getInt16(4, true) + ' ' + dv.getUint16(4) + ' ' + new Uint8Array(buf).length + ' ' + dv.byteLength);
try { dv.getInt32(6); } catch (x) { print(x.name); }
var i16 = new Int16Array(buf, 2, 2); print(i16.length + ' ' + i16.byteOffset);
try { new Int16Array(buf, 1); } catch (x) { print(x.name); }
var sub = new Uint8Array([1, 2, 3, 4]).subarray(1, 3); print(sub.length + ' ' + sub[0]); u8.set([7, 8], 1); print(u8[1] + ' ' + u8[2]);
print(Array.prototype.join.call(new Float64Array([3, -0, NaN, 1, -Infinity]).sort(), ','));
