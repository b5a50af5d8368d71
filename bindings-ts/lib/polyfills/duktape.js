// Built-ins the device's language level has (Map and Set from API 0.2.6; the ES2015 methods of
// typed arrays in every version) that Duktape 2.7 lacks. JerryScript has them natively.
//
// The compiler puts the pieces an app may use in front of packages built with --engine duktape,
// as `(function (global) { <this file> <install calls> })(this);`; the minifier then drops every
// function no install call reaches. So a package for Duktape behaves as one for JerryScript and
// pays only for what it uses. ES5 only: this is not lowered.
//
// Semantics follow ES2015 except where the device has no iteration: the constructors take an
// array (of [key, value] pairs for Map), and there are no keys()/values()/entries() iterators.

function defineHidden(object, name, value) {
  Object.defineProperty(object, name, { value: value, writable: true, configurable: true, enumerable: false });
}

// ---------------------------------------------------------------------------------- Map, Set

// Primitive keys are found through a dictionary, objects by a scan. Deleted entries leave a hole
// until no forEach is running, so a forEach sees entries added during it and skips deleted ones,
// as the standard says.
var HOLE = {};

function primitiveKey(key) {
  var t = typeof key;
  if (key === null || (t !== 'object' && t !== 'function')) {
    // SameValueZero: NaN is one key, and -0 is +0 (String(-0) is "0").
    return t + ':' + String(key);
  }
  return null;
}

function Store() {
  defineHidden(this, 'keys', []);
  defineHidden(this, 'values', []);
  defineHidden(this, 'index', {});
  defineHidden(this, 'count', 0);
  defineHidden(this, 'walking', 0);
}

function storeFind(store, key) {
  var p = primitiveKey(key);
  if (p !== null) {
    return Object.prototype.hasOwnProperty.call(store.index, p) ? store.index[p] : -1;
  }
  for (var i = 0; i < store.keys.length; i++) {
    if (store.keys[i] === key) return i;
  }
  return -1;
}

function storeSet(store, key, value) {
  var i = storeFind(store, key);
  if (i >= 0) {
    store.values[i] = value;
    return;
  }
  if (key === 0) key = 0; // -0 is stored as +0
  var p = primitiveKey(key);
  if (p !== null) store.index[p] = store.keys.length;
  store.keys.push(key);
  store.values.push(value);
  store.count++;
}

function storeCompact(store) {
  if (store.walking > 0 || store.count === store.keys.length) return;
  var keys = [];
  var values = [];
  var index = {};
  for (var i = 0; i < store.keys.length; i++) {
    if (store.keys[i] === HOLE) continue;
    var p = primitiveKey(store.keys[i]);
    if (p !== null) index[p] = keys.length;
    keys.push(store.keys[i]);
    values.push(store.values[i]);
  }
  store.keys = keys;
  store.values = values;
  store.index = index;
}

function storeDelete(store, key) {
  var i = storeFind(store, key);
  if (i < 0) return false;
  var p = primitiveKey(key);
  if (p !== null) delete store.index[p];
  store.keys[i] = HOLE;
  store.values[i] = undefined;
  store.count--;
  storeCompact(store);
  return true;
}

function storeClear(store) {
  for (var i = 0; i < store.keys.length; i++) {
    store.keys[i] = HOLE;
    store.values[i] = undefined;
  }
  store.index = {};
  store.count = 0;
  storeCompact(store);
}

function storeForEach(store, owner, callback, thisArg, asSet) {
  if (typeof callback !== 'function') throw new TypeError(String(callback) + ' is not a function');
  store.walking++;
  try {
    for (var i = 0; i < store.keys.length; i++) {
      var key = store.keys[i];
      if (key === HOLE) continue;
      callback.call(thisArg, asSet ? key : store.values[i], key, owner);
    }
  } finally {
    store.walking--;
    storeCompact(store);
  }
}

function storeOf(object, kind, method) {
  var store = object !== null && typeof object === 'object' ? object.__store : undefined;
  if (!(store instanceof Store) || object.__kind !== kind) {
    throw new TypeError(kind + '.prototype.' + method + ' called on an object that is not a ' + kind);
  }
  return store;
}

function fillFrom(target, entries, add) {
  if (entries === undefined || entries === null) return;
  if (typeof entries !== 'object' || typeof entries.length !== 'number') {
    throw new TypeError('the device has no iteration: pass an array');
  }
  for (var i = 0; i < entries.length; i++) add(target, entries[i]);
}

function installMap(global) {
  if (typeof global.Map === 'function') return;
  function Map(entries) {
    if (!(this instanceof Map)) throw new TypeError("Constructor Map requires 'new'");
    defineHidden(this, '__store', new Store());
    defineHidden(this, '__kind', 'Map');
    fillFrom(this, entries, function (map, entry) {
      if (entry === null || typeof entry !== 'object') throw new TypeError('Map entry ' + String(entry) + ' is not an object');
      map.set(entry[0], entry[1]);
    });
  }
  defineHidden(Map.prototype, 'get', function get(key) {
    var store = storeOf(this, 'Map', 'get');
    var i = storeFind(store, key);
    return i < 0 ? undefined : store.values[i];
  });
  defineHidden(Map.prototype, 'set', function set(key, value) {
    storeSet(storeOf(this, 'Map', 'set'), key, value);
    return this;
  });
  defineHidden(Map.prototype, 'has', function has(key) {
    return storeFind(storeOf(this, 'Map', 'has'), key) >= 0;
  });
  defineHidden(Map.prototype, 'delete', function (key) {
    return storeDelete(storeOf(this, 'Map', 'delete'), key);
  });
  defineHidden(Map.prototype, 'clear', function clear() {
    storeClear(storeOf(this, 'Map', 'clear'));
  });
  defineHidden(Map.prototype, 'forEach', function forEach(callback, thisArg) {
    storeForEach(storeOf(this, 'Map', 'forEach'), this, callback, thisArg, false);
  });
  Object.defineProperty(Map.prototype, 'size', {
    get: function () {
      return storeOf(this, 'Map', 'size').count;
    },
    configurable: true,
  });
  defineHidden(global, 'Map', Map);
}

function installSet(global) {
  if (typeof global.Set === 'function') return;
  function Set(values) {
    if (!(this instanceof Set)) throw new TypeError("Constructor Set requires 'new'");
    defineHidden(this, '__store', new Store());
    defineHidden(this, '__kind', 'Set');
    fillFrom(this, values, function (set, value) {
      set.add(value);
    });
  }
  defineHidden(Set.prototype, 'add', function add(value) {
    var store = storeOf(this, 'Set', 'add');
    if (storeFind(store, value) < 0) storeSet(store, value, value);
    return this;
  });
  defineHidden(Set.prototype, 'has', function has(value) {
    return storeFind(storeOf(this, 'Set', 'has'), value) >= 0;
  });
  defineHidden(Set.prototype, 'delete', function (value) {
    return storeDelete(storeOf(this, 'Set', 'delete'), value);
  });
  defineHidden(Set.prototype, 'clear', function clear() {
    storeClear(storeOf(this, 'Set', 'clear'));
  });
  defineHidden(Set.prototype, 'forEach', function forEach(callback, thisArg) {
    storeForEach(storeOf(this, 'Set', 'forEach'), this, callback, thisArg, true);
  });
  Object.defineProperty(Set.prototype, 'size', {
    get: function () {
      return storeOf(this, 'Set', 'size').count;
    },
    configurable: true,
  });
  defineHidden(global, 'Set', Set);
}

// ---------------------------------------------------------------------------------- typed arrays

var TYPED_ARRAYS = [
  'Int8Array',
  'Uint8Array',
  'Uint8ClampedArray',
  'Int16Array',
  'Uint16Array',
  'Int32Array',
  'Uint32Array',
  'Float32Array',
  'Float64Array',
];

function relativeIndex(value, length, fallback) {
  if (value === undefined) return fallback;
  var n = Number(value);
  n = n !== n ? 0 : n < 0 ? Math.ceil(n) : Math.floor(n);
  return n < 0 ? Math.max(length + n, 0) : Math.min(n, length);
}

function callable(callback) {
  if (typeof callback !== 'function') throw new TypeError(String(callback) + ' is not a function');
  return callback;
}

function installTypedArray(global, name, method, isStatic) {
  for (var i = 0; i < TYPED_ARRAYS.length; i++) {
    var ctor = global[TYPED_ARRAYS[i]];
    if (typeof ctor !== 'function') continue;
    var target = isStatic ? ctor : ctor.prototype;
    // Inherited from Object.prototype (toString) counts as missing: typed arrays have their own.
    if (target[name] === undefined || target[name] === Object.prototype[name]) defineHidden(target, name, method);
  }
}

function taEvery(callback, thisArg) {
  callable(callback);
  for (var i = 0; i < this.length; i++) if (!callback.call(thisArg, this[i], i, this)) return false;
  return true;
}

function taSome(callback, thisArg) {
  callable(callback);
  for (var i = 0; i < this.length; i++) if (callback.call(thisArg, this[i], i, this)) return true;
  return false;
}

function taForEach(callback, thisArg) {
  callable(callback);
  for (var i = 0; i < this.length; i++) callback.call(thisArg, this[i], i, this);
}

function taMap(callback, thisArg) {
  callable(callback);
  var out = new this.constructor(this.length);
  for (var i = 0; i < this.length; i++) out[i] = callback.call(thisArg, this[i], i, this);
  return out;
}

function taFilter(callback, thisArg) {
  callable(callback);
  var kept = [];
  for (var i = 0; i < this.length; i++) if (callback.call(thisArg, this[i], i, this)) kept.push(this[i]);
  var out = new this.constructor(kept.length);
  for (var j = 0; j < kept.length; j++) out[j] = kept[j];
  return out;
}

function taFind(callback, thisArg) {
  callable(callback);
  for (var i = 0; i < this.length; i++) if (callback.call(thisArg, this[i], i, this)) return this[i];
  return undefined;
}

function taFindIndex(callback, thisArg) {
  callable(callback);
  for (var i = 0; i < this.length; i++) if (callback.call(thisArg, this[i], i, this)) return i;
  return -1;
}

function taIndexOf(search, fromIndex) {
  for (var i = relativeIndex(fromIndex, this.length, 0); i < this.length; i++) if (this[i] === search) return i;
  return -1;
}

function taLastIndexOf(search) {
  var k = this.length - 1;
  if (arguments.length > 1) {
    var n = Number(arguments[1]);
    n = n !== n ? 0 : n < 0 ? Math.ceil(n) : Math.floor(n);
    k = n >= 0 ? Math.min(n, this.length - 1) : this.length + n;
  }
  for (; k >= 0; k--) if (this[k] === search) return k;
  return -1;
}

function taJoin(separator) {
  var sep = separator === undefined ? ',' : String(separator);
  var parts = [];
  for (var i = 0; i < this.length; i++) parts.push(String(this[i]));
  return parts.join(sep);
}

function taToString() {
  return taJoin.call(this);
}

function taReduce(callback) {
  callable(callback);
  var i = 0;
  var acc;
  if (arguments.length > 1) acc = arguments[1];
  else if (this.length === 0) throw new TypeError('Reduce of empty array with no initial value');
  else acc = this[i++];
  for (; i < this.length; i++) acc = callback(acc, this[i], i, this);
  return acc;
}

function taReduceRight(callback) {
  callable(callback);
  var i = this.length - 1;
  var acc;
  if (arguments.length > 1) acc = arguments[1];
  else if (this.length === 0) throw new TypeError('Reduce of empty array with no initial value');
  else acc = this[i--];
  for (; i >= 0; i--) acc = callback(acc, this[i], i, this);
  return acc;
}

function taReverse() {
  for (var i = 0, j = this.length - 1; i < j; i++, j--) {
    var t = this[i];
    this[i] = this[j];
    this[j] = t;
  }
  return this;
}

function taSlice(begin, end) {
  var from = relativeIndex(begin, this.length, 0);
  var to = relativeIndex(end, this.length, this.length);
  var out = new this.constructor(Math.max(to - from, 0));
  for (var i = from; i < to; i++) out[i - from] = this[i];
  return out;
}

function taFill(value, begin, end) {
  var from = relativeIndex(begin, this.length, 0);
  var to = relativeIndex(end, this.length, this.length);
  for (var i = from; i < to; i++) this[i] = value;
  return this;
}

function taCopyWithin(target, begin, end) {
  var len = this.length;
  var to = relativeIndex(target, len, 0);
  var from = relativeIndex(begin, len, 0);
  var last = relativeIndex(end, len, len);
  var count = Math.min(last - from, len - to);
  if (count <= 0) return this;
  var copy = [];
  for (var i = 0; i < count; i++) copy.push(this[from + i]);
  for (var j = 0; j < count; j++) this[to + j] = copy[j];
  return this;
}

// Numeric order, NaN last, -0 before +0.
function numericOrder(a, b) {
  if (a !== a) return b !== b ? 0 : 1;
  if (b !== b) return -1;
  if (a < b) return -1;
  if (a > b) return 1;
  if (a === 0 && b === 0) return 1 / a < 0 ? (1 / b < 0 ? 0 : -1) : 1 / b < 0 ? 1 : 0;
  return 0;
}

function taSort(compare) {
  if (compare !== undefined) callable(compare);
  var values = [];
  for (var i = 0; i < this.length; i++) values.push(this[i]);
  values.sort(compare || numericOrder);
  for (var j = 0; j < values.length; j++) this[j] = values[j];
  return this;
}

function taFrom(source, mapFn, thisArg) {
  if (source === null || source === undefined) throw new TypeError('cannot convert ' + source + ' to an object');
  if (mapFn !== undefined) callable(mapFn);
  var items = Object(source);
  var len = items.length >>> 0;
  var out = new this(len);
  for (var i = 0; i < len; i++) out[i] = mapFn ? mapFn.call(thisArg, items[i], i) : items[i];
  return out;
}

function taOf() {
  var out = new this(arguments.length);
  for (var i = 0; i < arguments.length; i++) out[i] = arguments[i];
  return out;
}
