// Built-ins of the device's language level that Duktape 2.7 lacks (Map and Set; the ES2015
// methods of typed arrays), supplied in the package for Duktape from
// bindings-ts/lib/polyfills/duktape.js. JerryScript packages never get them: the engine has them.
//
// What goes in is decided from the ES5 bundle, library code included: Map and Set when the
// bundle refers to them, and for typed arrays each method whose name the bundle uses as a
// property anywhere (a name shared with arrays, such as slice, costs a few bytes more; missing
// one would make the app behave differently on the simulator than on the device).
import * as fs from 'fs';
import * as path from 'path';
import * as ts from 'typescript';
import { ApiVersion, toolsRoot } from '../codegen/versions';
import { Engine } from './hostTools';
import { hasBuiltin } from './languageLevel';

const TYPED_ARRAYS = [
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

/** Typed-array method (or static) -> the polyfill's function. */
const TYPED_ARRAY_METHODS: ReadonlyMap<string, string> = new Map([
  ['every', 'taEvery'],
  ['some', 'taSome'],
  ['forEach', 'taForEach'],
  ['map', 'taMap'],
  ['filter', 'taFilter'],
  ['find', 'taFind'],
  ['findIndex', 'taFindIndex'],
  ['indexOf', 'taIndexOf'],
  ['lastIndexOf', 'taLastIndexOf'],
  ['join', 'taJoin'],
  ['reduce', 'taReduce'],
  ['reduceRight', 'taReduceRight'],
  ['reverse', 'taReverse'],
  ['slice', 'taSlice'],
  ['fill', 'taFill'],
  ['copyWithin', 'taCopyWithin'],
  ['sort', 'taSort'],
]);
const TYPED_ARRAY_STATICS: ReadonlyMap<string, string> = new Map([
  ['from', 'taFrom'],
  ['of', 'taOf'],
]);

export interface PolyfillSelection {
  /** Names of what is supplied, e.g. ["Map", "Uint8Array.prototype.fill"], for reports. */
  pieces: string[];
  /** The script to put in front of the bundle (ends with a newline), or '' for none. */
  code: string;
}

interface BundleNames {
  /** Identifiers used as references (not as property names). */
  references: Set<string>;
  /** Names used as properties: a.b, a['b']. */
  properties: Set<string>;
}

function namesOf(code: string): BundleNames {
  const sf = ts.createSourceFile('bundle.js', code, ts.ScriptTarget.ES5, true, ts.ScriptKind.JS);
  const references = new Set<string>();
  const properties = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAccessExpression(node)) {
      properties.add(node.name.text);
      visit(node.expression);
      return;
    }
    if (ts.isElementAccessExpression(node) && ts.isStringLiteralLike(node.argumentExpression)) {
      properties.add(node.argumentExpression.text);
    }
    if (ts.isPropertyAssignment(node) && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name))) {
      visit(node.initializer);
      return;
    }
    if (ts.isIdentifier(node)) references.add(node.text);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return { references, properties };
}

let source: string | undefined;

function polyfillSource(): string {
  source ??= fs.readFileSync(path.join(toolsRoot(), 'lib', 'polyfills', 'duktape.js'), 'utf8');
  return source;
}

export function selectPolyfills(bundle: string, engine: Engine, api: ApiVersion): PolyfillSelection {
  if (engine !== 'duktape') return { pieces: [], code: '' };
  const names = namesOf(bundle);
  const pieces: string[] = [];
  const calls: string[] = [];
  for (const ctor of ['Map', 'Set']) {
    if (names.references.has(ctor) && hasBuiltin(api, ctor)) {
      pieces.push(ctor);
      calls.push(`install${ctor}(global);`);
    }
  }
  if (TYPED_ARRAYS.some((t) => names.references.has(t))) {
    // String(typedArray) and '' + typedArray call toString without naming it.
    const methods = new Map([...TYPED_ARRAY_METHODS].filter(([m]) => names.properties.has(m) || m === 'join'));
    methods.set('toString', 'taToString');
    for (const [m, fn] of methods) {
      pieces.push(`TypedArray.prototype.${m}`);
      calls.push(`installTypedArray(global, '${m}', ${fn}, false);`);
    }
    for (const [m, fn] of TYPED_ARRAY_STATICS) {
      if (!names.properties.has(m)) continue;
      pieces.push(`TypedArray.${m}`);
      calls.push(`installTypedArray(global, '${m}', ${fn}, true);`);
    }
  }
  if (calls.length === 0) return { pieces: [], code: '' };
  const code = `(function (global) {\n${polyfillSource()}\n${calls.join('\n')}\n})(this);\n`;
  return { pieces, code };
}
