// The micro-app compiler: ES5 lowering (checked by parsing the output and by running it), type
// errors with positions, the per-version language level, and an end-to-end build that runs on
// the simulator.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vm from 'vm';
import {
  BuildError,
  bundleApp,
  checkEs5Syntax,
  compileApp,
  Diagnostic,
  ensureHostTools,
  formatDiagnostic,
  readPackageHeader,
} from '../src/compiler';
import { packVersion, typingsFile } from '../src/codegen/versions';
import { minifyScript } from '../src/compiler/minify';
import { selectPolyfills } from '../src/compiler/polyfill';

const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-compiler-test-'));
process.on('exit', () => fs.rmSync(tmpRoot, { recursive: true, force: true }));

// A minimal stand-in for the generated typings, so these tests do not depend on the API
// declarations.
const TYPINGS = path.join(tmpRoot, 'typings.d.ts');
fs.writeFileSync(TYPINGS, 'declare function print(text: any): void;\n');

let dirCount = 0;
/** A fresh directory holding the given files. */
function project(files: Record<string, string>): string {
  const dir = path.join(tmpRoot, `p${++dirCount}`);
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

/** Run an ES5 bundle in a fresh context with print() collecting lines; waits for promises. */
async function runBundle(code: string): Promise<string[]> {
  const out: string[] = [];
  vm.runInNewContext(code, { print: (x: unknown) => out.push(String(x)) });
  await new Promise((resolve) => setImmediate(resolve));
  return out;
}

async function buildFailure(entry: string, apiVersion = '0.2.6'): Promise<BuildError> {
  try {
    await bundleApp({ entry, apiVersion: apiVersion as '0.2.6', typingsFile: TYPINGS });
  } catch (err) {
    if (err instanceof BuildError) return err;
    throw err;
  }
  assert.fail('the build succeeded');
}

function errorsOf(err: BuildError): Diagnostic[] {
  return err.diagnostics.filter((d) => d.severity === 'error');
}

// ---------------------------------------------------------------------------------------------
// ES5 lowering

const LOWERING: { name: string; source: string; expect: string[]; absent: RegExp[] }[] = [
  {
    name: 'arrow functions (with lexical this)',
    source: `
      const add = (a: number, b: number) => a + b;
      class Counter {
        n = 0;
        inc(): number { [1, 2, 3].forEach(() => this.n++); return this.n; }
      }
      print(add(2, 3));
      print(new Counter().inc());
    `,
    expect: ['5', '3'],
    absent: [/=>/],
  },
  {
    name: 'classes (inheritance, super, getters, statics)',
    source: `
      class Animal {
        constructor(protected name: string) {}
        speak(): string { return this.name + ' makes a sound'; }
        static create(n: string): Animal { return new Dog(n); }
      }
      class Dog extends Animal {
        speak(): string { return super.speak() + ' (woof)'; }
        get loud(): string { return this.speak().toUpperCase(); }
      }
      const d = Animal.create('Rex');
      print(d.speak());
      print((d as Dog).loud);
      print(d instanceof Animal && d instanceof Dog);
    `,
    expect: ['Rex makes a sound (woof)', 'REX MAKES A SOUND (WOOF)', 'true'],
    absent: [/\bclass\s+[A-Za-z_$]/, /\bsuper\b/],
  },
  {
    name: 'template literals (plain, multi-line and tagged)',
    source: `
      const who = 'world';
      print(\`hello \${who}, \${1 + 1}\`);
      print(\`two
lines\`);
      function tag(parts: TemplateStringsArray, ...values: number[]): string {
        return parts.join('|') + ':' + values.join(',');
      }
      print(tag\`a\${1}b\${2}c\`);
    `,
    expect: ['hello world, 2', 'two\nlines', 'a|b|c:1,2'],
    absent: [/`/],
  },
  {
    name: 'default arguments',
    source: `
      function greet(name = 'you', punct: string = '!'): string { return 'hi ' + name + punct; }
      print(greet());
      print(greet('Ann'));
      print(greet(undefined, '?'));
    `,
    expect: ['hi you!', 'hi Ann!', 'hi you?'],
    absent: [/name\s*=\s*'you'\s*[,)]/],
  },
  {
    name: 'let and const (block scope, a closure per loop iteration)',
    source: `
      const fns: (() => number)[] = [];
      for (let i = 0; i < 3; i++) { fns.push(() => i); }
      print(fns.map((f) => f()).join(','));
      const x = 1;
      { const x = 2; print(x); }
      print(x);
    `,
    expect: ['0,1,2', '2', '1'],
    absent: [/\b(let|const)\s+[a-z_]/i],
  },
  {
    name: 'destructuring, spread, for...of over arrays and async/await',
    source: `
      const [a, b] = [1, 2];
      const { c, ...rest } = { c: 3, d: 4, e: 5 };
      const all = [a, b, ...[c]];
      let sum = 0;
      for (const v of all) sum += v;
      print(sum + ' ' + Object.keys(rest).join(''));
      async function later(): Promise<string> { const v = await Promise.resolve('done'); return v; }
      later().then(print);
    `,
    expect: ['6 de', 'done'],
    absent: [/\.\.\./, /\bfor\s*\([^)]*\bof\b/, /\basync\b/, /\bawait\b/],
  },
];

for (const c of LOWERING) {
  test(`ES5 lowering: ${c.name}`, async () => {
    const dir = project({ 'app.ts': c.source });
    const r = await bundleApp({ entry: path.join(dir, 'app.ts'), apiVersion: '0.2.6', typingsFile: TYPINGS });
    assert.deepEqual(checkEs5Syntax(r.code, 'app.es5.js'), [], 'the output parses as ES5 only');
    for (const re of c.absent) assert.doesNotMatch(r.code, re);
    // No module system is left: the script runs as it is.
    assert.doesNotMatch(r.code, /\b(require\s*\(|import\s|export\s)/);
    assert.deepEqual(await runBundle(r.code), c.expect);
  });
}

test('tslib helpers are bundled into the script', async () => {
  const dir = project({ 'app.ts': 'class A {}\nclass B extends A {}\nprint(new B() instanceof A);\n' });
  const r = await bundleApp({ entry: path.join(dir, 'app.ts'), apiVersion: '0.2.6', typingsFile: TYPINGS });
  assert.match(r.code, /function __extends\(/);
  assert.ok(r.modules.some((m) => /[\\/]tslib[\\/]/.test(m)));
  assert.deepEqual(await runBundle(r.code), ['true']);
});

test('imported modules are bundled into one script', async () => {
  const dir = project({
    'app.ts': "import { twice } from './lib/math';\nimport helper from './helper.js';\nprint(twice(21) + helper());\n",
    'lib/math.ts': 'export const twice = (n: number): number => n * 2;\nexport const unused = 1;\n',
    'helper.js': "export default function () { return '!'; }\n",
  });
  const r = await bundleApp({ entry: path.join(dir, 'app.ts'), apiVersion: '0.2.6', typingsFile: TYPINGS });
  assert.deepEqual(checkEs5Syntax(r.code, 'app.es5.js'), []);
  assert.equal(r.modules[0], path.join(dir, 'app.ts'));
  assert.ok(r.modules.includes(path.join(dir, 'lib', 'math.ts')));
  assert.deepEqual(await runBundle(r.code), ['42!']);
});

test('loops that compute nothing stay in the app: a hang or a busy wait is what the app does', async () => {
  // Rollup's tree-shaking took such loops for dead code; on the device they spin until the
  // watchdog resets it, and the simulator must see the same.
  const dir = project({
    'app.ts': 'print("start");\nfor (let i = 0; i < 1000; i++) {}\nlet spins = 0;\nwhile (true) { spins++; }\n',
  });
  const r = await bundleApp({ entry: path.join(dir, 'app.ts'), apiVersion: '0.2.6', typingsFile: TYPINGS });
  assert.match(r.code, /for \(var i = 0; i < 1000; i\+\+\)/);
  assert.match(r.code, /while \(true\)/);
  const min = await minifyScript(r.code, r.map, { fileName: 'app.min.js', mode: 'dense' });
  assert.match(min.code, /for\(;;\)/);
});

test('what nothing uses in the app\'s own modules is left out of the minified script', async () => {
  const dir = project({
    'app.ts': "import { twice } from './lib';\nprint(twice(21));\n",
    'lib.ts': "export const twice = (n: number): number => n * 2;\nexport function unused(): string { return 'UNUSED_MARKER'; }\n",
  });
  const r = await bundleApp({ entry: path.join(dir, 'app.ts'), apiVersion: '0.2.6', typingsFile: TYPINGS });
  const min = await minifyScript(r.code, r.map, { fileName: 'app.min.js', mode: 'dense' });
  assert.doesNotMatch(min.code, /UNUSED_MARKER/);
  assert.deepEqual(await runBundle(min.code), ['42']);
});

test('npm packages (ES modules and CommonJS) are bundled, and what is unused is left out', async () => {
  const dir = project({
    'node_modules/esm-lib/package.json': '{"name":"esm-lib","version":"1.0.0","type":"module","main":"index.js"}\n',
    'node_modules/esm-lib/index.js':
      "export function used(n) { return 'used:' + n; }\nexport function unused() { return 'UNUSED_MARKER'; }\n",
    'node_modules/cjs-lib/package.json': '{"name":"cjs-lib","version":"1.0.0","main":"lib.js"}\n',
    'node_modules/cjs-lib/lib.js': "exports.twice = function (n) { return n * 2; };\n",
    'app.ts':
      "// @ts-ignore: no types\nimport { used } from 'esm-lib';\n// @ts-ignore: no types\nimport { twice } from 'cjs-lib';\nprint(used(twice(21)));\n",
  });
  const r = await bundleApp({ entry: path.join(dir, 'app.ts'), apiVersion: '0.2.6', typingsFile: TYPINGS });
  assert.deepEqual(checkEs5Syntax(r.code, 'app.es5.js'), []);
  assert.doesNotMatch(r.code, /UNUSED_MARKER/);
  assert.ok(r.modules.some((m) => m.endsWith(path.join('esm-lib', 'index.js'))));
  assert.deepEqual(await runBundle(r.code), ['used:42']);
});

test('a .js entry is lowered but not type-checked, and keeps script semantics', async () => {
  const dir = project({
    'app.js': "var n = 1;\nn = 'now a string';\nimplicitGlobal = 2;\nvar f = (x) => `${x}${implicitGlobal}`;\nprint(f(n));\n",
  });
  const r = await bundleApp({ entry: path.join(dir, 'app.js'), apiVersion: '0.2.6', typingsFile: TYPINGS });
  assert.deepEqual(checkEs5Syntax(r.code, 'app.es5.js'), []);
  assert.doesNotMatch(r.code, /['"]use strict['"]/);
  assert.deepEqual(await runBundle(r.code), ['now a string2']);
});

// ---------------------------------------------------------------------------------------------
// Errors

test('type errors are build errors, each with file:line:column', async () => {
  const dir = project({
    'app.ts': "// a comment line\nconst n: number = 'text';\nprint(n);\nprint(missingName);\n",
  });
  const entry = path.join(dir, 'app.ts');
  const err = await buildFailure(entry);
  const errors = errorsOf(err);
  assert.equal(errors.length, 2);
  assert.deepEqual(
    errors.map((d) => [d.file, d.line, d.column, d.code]),
    [
      [entry, 2, 7, 'TS2322'],
      [entry, 4, 7, 'TS2304'],
    ],
  );
  assert.equal(
    formatDiagnostic(errors[0], dir),
    "app.ts:2:7: error TS2322: Type 'string' is not assignable to type 'number'.",
  );
  // The error's own message lists every diagnostic the same way.
  assert.match(err.message, /app\.ts:2:7: error TS2322: [^\n]*\n.*app\.ts:4:7: error TS2304: /);
});

test('a syntax error is reported with its position', async () => {
  const dir = project({ 'app.ts': 'print(1);\nfunction (\n' });
  const err = await buildFailure(path.join(dir, 'app.ts'));
  const first = errorsOf(err)[0];
  assert.equal(first.file, path.join(dir, 'app.ts'));
  assert.equal(first.line, 2);
  assert.match(first.code ?? '', /^TS1\d{3}$/);
});

test('an import that cannot be resolved is an error', async () => {
  const dir = project({ 'app.js': "import { x } from './missing';\nprint(x);\n" });
  const err = await buildFailure(path.join(dir, 'app.js'));
  assert.ok(errorsOf(err).length >= 1);
  assert.match(err.message, /missing/);
});

test('warnings from the bundler point at the line in the TypeScript source', async () => {
  // The interface and the type-only import vanish in TypeScript's output, moving `this` up.
  const dir = project({
    'types.ts': 'export interface P { x: number }\n',
    'app.ts': "import type { P } from './types';\ninterface Q { y: number }\nconst p: P = { x: 1 };\nconst self = this;\nprint(p.x + String(self));\n",
  });
  const r = await bundleApp({ entry: path.join(dir, 'app.ts'), apiVersion: '0.2.6', typingsFile: TYPINGS });
  const w = r.warnings.find((d) => d.code === 'THIS_IS_UNDEFINED');
  assert.ok(w, 'a warning about top-level this');
  assert.deepEqual([w.line, w.column], [4, 14]);
});

test('an unknown API version is refused', async () => {
  const dir = project({ 'app.ts': 'print(1);\n' });
  await assert.rejects(
    compileApp({ entry: path.join(dir, 'app.ts'), apiVersion: '0.3.0', outFile: path.join(dir, 'app.bapp'), typingsFile: TYPINGS }),
    (err: unknown) => err instanceof BuildError && /unknown API version '0\.3\.0' \(known: 0\.0\.9, 0\.1\.5, 0\.2\.6\)/.test(err.message),
  );
  assert.equal(fs.existsSync(path.join(dir, 'app.bapp')), false);
});

test('missing typings are reported clearly', async () => {
  const dir = project({ 'app.ts': 'print(1);\n' });
  await assert.rejects(
    bundleApp({ entry: path.join(dir, 'app.ts'), apiVersion: '0.2.6', typingsFile: path.join(dir, 'none.d.ts') }),
    /the typings for API 0\.2\.6 are missing .*none\.d\.ts.*beacon codegen/,
  );
});

test('bundled library code beyond ES5 is an error with positions in the ES5 script', async () => {
  const dir = project({
    'node_modules/fancy/package.json': '{"name":"fancy","version":"1.0.0","type":"module","main":"index.js"}\n',
    'node_modules/fancy/index.js': 'export const twice = (n) => n * 2;\n',
    'app.ts': "// @ts-ignore: the library has no types\nimport { twice } from 'fancy';\nprint(twice(2));\n",
  });
  const outFile = path.join(dir, 'app.bapp');
  await assert.rejects(
    compileApp({ entry: path.join(dir, 'app.ts'), apiVersion: '0.2.6', outFile, typingsFile: TYPINGS }),
    (err: unknown) => {
      assert.ok(err instanceof BuildError);
      const found = err.diagnostics.filter((d) => d.code === 'BEACON1002');
      assert.deepEqual(
        found.map((d) => [d.file, d.message]),
        [
          [path.join(dir, 'app.es5.js'), 'const declaration is not ES5'],
          [path.join(dir, 'app.es5.js'), 'arrow function is not ES5'],
        ],
      );
      assert.match(err.message, /the bundle is not ES5/);
      return true;
    },
  );
  assert.equal(fs.existsSync(outFile), false);
});

// ---------------------------------------------------------------------------------------------
// Language level per API version

test('Map, Set and DataView are type errors before 0.2.6, naming the version that has them', async () => {
  const source = "const m = new Map<string, number>();\nconst s = new Set<number>();\nconst v = new DataView(new ArrayBuffer(4));\nprint([m, s, v].length);\n";
  const dir = project({ 'app.ts': source });
  const entry = path.join(dir, 'app.ts');
  for (const api of ['0.0.9', '0.1.5']) {
    const err = await buildFailure(entry, api);
    assert.deepEqual(
      errorsOf(err).map((d) => `${d.line}:${d.column} ${d.message}`),
      [
        `1:15 Cannot find name 'Map' — Map is in API 0.2.6, not ${api}`,
        `2:15 Cannot find name 'Set' — Set is in API 0.2.6, not ${api}`,
        `3:15 Cannot find name 'DataView' — DataView is in API 0.2.6, not ${api}`,
      ],
    );
  }
  const r = await bundleApp({ entry, apiVersion: '0.2.6', typingsFile: TYPINGS });
  assert.deepEqual(await runBundle(r.code), ['3']);
});

test('built-ins beyond the language level are type errors that say so, not lib advice', async () => {
  const dir = project({
    'app.ts': "print(Object.values({ a: 1 }));\nprint([1].includes(1));\nprint('ab'.startsWith('a'));\nconst w = new WeakMap();\n",
  });
  const err = await buildFailure(path.join(dir, 'app.ts'), '0.2.6');
  const lines = errorsOf(err).map((d) => formatDiagnostic(d, dir));
  assert.deepEqual(lines, [
    "app.ts:1:14: error TS2550: Property 'values' does not exist on type 'ObjectConstructor' — Object.values (ES2017) is not available on the device (API 0.2.6)",
    "app.ts:2:11: error TS2550: Property 'includes' does not exist on type 'number[]' — Array.prototype.includes (ES2016) is not available on the device (API 0.2.6)",
    "app.ts:3:12: error TS2550: Property 'startsWith' does not exist on type '\"ab\"' — String.prototype.startsWith (ES2015) is not available on the device (API 0.2.6)",
    "app.ts:4:15: error TS2583: Cannot find name 'WeakMap' — WeakMap (ES2015) is not available on the device (API 0.2.6 has ES5.1 with Promise, ArrayBuffer, typed arrays, DataView, Map and Set)",
  ]);
  assert.doesNotMatch(err.message, /change your target library|'lib' compiler option/);
});

test('an API name of another version says which versions have it', async () => {
  const dir = project({ 'app.ts': "// timers.count came with 0.2.6\nconst t = timers.count('1s', 3, () => {});\n" });
  const entry = path.join(dir, 'app.ts');
  let err: BuildError | undefined;
  try {
    await bundleApp({ entry, apiVersion: '0.0.9', typingsFile: typingsFile('0.0.9') });
  } catch (e) {
    if (e instanceof BuildError) err = e;
    else throw e;
  }
  assert.ok(err, 'the build failed');
  assert.deepEqual(
    errorsOf(err).map((d) => formatDiagnostic(d, dir)),
    ["app.ts:2:18: error TS2339: Property 'count' does not exist on type 'typeof timers' — timers.count is in API 0.2.6, not 0.0.9"],
  );
  await bundleApp({ entry, apiVersion: '0.2.6', typingsFile: typingsFile('0.2.6') });
});

test('the language check follows symbols, not names', async () => {
  const dir = project({
    'app.ts':
      'class Map { size = 0; }\n' + // a local class named Map is fine where the built-in is missing
      'const values = (o: object) => Object.keys(o);\n' +
      'print(new Map().size + values({ a: 1 }).join());\n',
    'app.js': 'var Set = function () { this.size = 2; };\nprint(new Set().size);\n',
  });
  const r = await bundleApp({ entry: path.join(dir, 'app.ts'), apiVersion: '0.1.5', typingsFile: TYPINGS });
  assert.deepEqual(await runBundle(r.code), ['0a']);
  const js = await bundleApp({ entry: path.join(dir, 'app.js'), apiVersion: '0.1.5', typingsFile: TYPINGS });
  assert.deepEqual(await runBundle(js.code), ['2']);
});

test('.js apps are checked for missing built-ins too, with positions', async () => {
  const dir = project({
    'app.js':
      'var w = new WeakMap();\n' +
      'var v = Object.values({ a: 1 });\n' +
      'var m = new Map();\n' +
      "var s = 'abc'.padStart(5);\n" +
      'print([w, v, m, s].length);\n',
  });
  const err = await buildFailure(path.join(dir, 'app.js'), '0.1.5');
  assert.deepEqual(
    errorsOf(err).map((d) => [d.line, d.column, d.code, d.message]),
    [
      [1, 13, 'BEACON1001', 'WeakMap (ES2015) is not available on the device (API 0.1.5 has ES5.1 with Promise, ArrayBuffer and typed arrays)'],
      [2, 16, 'BEACON1001', 'Object.values (ES2017) is not available on the device (API 0.1.5)'],
      [3, 13, 'BEACON1001', 'Map is in API 0.2.6, not 0.1.5'],
      [4, 15, 'BEACON1001', 'String.prototype.padStart (ES2017) is not available on the device (API 0.1.5)'],
    ],
  );
});

test('promises and typed arrays are available in every version', async () => {
  const dir = project({
    'app.ts': 'const a = new Uint8Array(new ArrayBuffer(2));\na[1] = 7;\nPromise.resolve(a[1]).then((v) => print(v));\n',
  });
  for (const api of ['0.0.9', '0.1.5', '0.2.6'] as const) {
    const r = await bundleApp({ entry: path.join(dir, 'app.ts'), apiVersion: api, typingsFile: TYPINGS });
    assert.deepEqual(await runBundle(r.code), ['7']);
  }
});

// ---------------------------------------------------------------------------------------------
// The ES5 check itself

const NOT_ES5: [string, string][] = [
  ['let a = 1;', 'let declaration'],
  ['const a = 1;', 'const declaration'],
  ['var f = () => 1;', 'arrow function'],
  ['class A {}', 'class'],
  ['var s = `x`;', 'template literal'],
  ['var s = `x${1}`;', 'template literal'],
  ['function f(a = 1) {}', 'default parameter'],
  ['function f(...a) {}', 'rest parameter'],
  ['var {a} = o;', 'destructuring'],
  ['[a, b] = [b, a];', 'destructuring assignment'],
  ['f(...a);', 'spread'],
  ['for (var x of y) {}', 'for...of'],
  ['var o = {a};', 'shorthand property'],
  ['var o = {[k]: 1};', 'computed property name'],
  ['var o = {m() {}};', 'method shorthand'],
  ['function* g() {}', 'generator'],
  ['async function f() {}', 'async function'],
  ['var x = a ?? b;', 'nullish coalescing'],
  ['var x = a?.b;', 'optional chaining'],
  ['var x = a ** 2;', 'exponent operator'],
  ['x ||= 1;', 'logical assignment'],
  ['var n = 0b101;', 'binary/octal literal'],
  ['var r = /x/u;', "regular expression flag 'u'"],
  ['try {} catch {}', 'catch without binding'],
  ['import x from "y";', 'import'],
  ['export var a = 1;', 'export'],
];

for (const [code, what] of NOT_ES5) {
  test(`the ES5 check rejects ${what}: ${code}`, () => {
    const found = checkEs5Syntax(code, 'x.js');
    assert.ok(
      found.some((d) => d.message === `${what} is not ES5` && d.line === 1 && d.file === 'x.js'),
      JSON.stringify(found),
    );
  });
}

test('the ES5 check accepts ES5', () => {
  const es5 =
    'var a = 1; function f(b) { return b * 2; }\n' +
    'var o = { get x() { return 1; }, set x(v) {}, "y": 2, 3: f };\n' +
    'for (var k in o) { if (!o.hasOwnProperty(k)) continue; }\n' +
    'try { f(a); } catch (e) { throw e; } finally { a = 0x1f; }\n' +
    '/re/gim.test("s"); label: do { break label; } while (false);\n' +
    'var g = function named() { return this && typeof arguments; };\n';
  assert.deepEqual(checkEs5Syntax(es5, 'x.js'), []);
});

// ---------------------------------------------------------------------------------------------
// End to end: the native package tool and simulator (built here if needed)

test('end to end: build a tiny app and run it on the simulator', async () => {
  const [, sim] = await ensureHostTools(['beacon-pack', 'beacon-sim'], 'duktape');
  const dir = project({ 'hello.ts': "const who: string = 'the app';\nprint(`hello from ${who}`);\n" });
  const outFile = path.join(dir, 'hello.bapp');
  const r = await compileApp({ entry: path.join(dir, 'hello.ts'), apiVersion: '0.2.6', engine: 'duktape', outFile });

  const pkg = fs.readFileSync(outFile);
  assert.equal(r.pack.package, pkg.length);
  const header = readPackageHeader(pkg);
  assert.ok(typeof header !== 'string', String(header));
  assert.equal(header.apiVersion, '0.2.6');
  assert.equal(packVersion(header.apiVersion), 0x000206);
  assert.equal(header.engine, 'duktape');
  assert.equal(header.bytecodeSize, r.pack.bytecode);
  assert.equal(header.sourceSize, r.pack.source);

  const run = spawnSync(sim, [outFile], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout, 'hello from the app\n');
});

test('end to end: a failed build leaves an existing package untouched', async () => {
  await ensureHostTools(['beacon-pack'], 'duktape');
  const dir = project({ 'app.ts': 'print(1);\n' });
  const outFile = path.join(dir, 'app.bapp');
  await compileApp({ entry: path.join(dir, 'app.ts'), apiVersion: '0.2.6', outFile });
  const before = fs.readFileSync(outFile);
  fs.writeFileSync(path.join(dir, 'app.ts'), "const n: number = 'x';\n");
  await assert.rejects(compileApp({ entry: path.join(dir, 'app.ts'), apiVersion: '0.2.6', outFile }), BuildError);
  assert.deepEqual(fs.readFileSync(outFile), before);
});

test('end to end: --keep writes the ES5 and the minified script next to the package', async () => {
  const dir = project({ 'app.ts': 'const f = (x: number) => x + 1;\nprint(f(1));\n' });
  const outFile = path.join(dir, 'app.bapp');
  const r = await compileApp({ entry: path.join(dir, 'app.ts'), apiVersion: '0.2.6', outFile, keepEs5: true });
  assert.equal(r.es5File, path.join(dir, 'app.es5.js'));
  assert.equal(r.minFile, path.join(dir, 'app.min.js'));
  const es5 = fs.readFileSync(path.join(dir, 'app.es5.js'), 'utf8');
  const min = fs.readFileSync(path.join(dir, 'app.min.js'), 'utf8');
  assert.deepEqual(checkEs5Syntax(es5, 'app.es5.js'), []);
  assert.deepEqual(checkEs5Syntax(min, 'app.min.js'), []);
  assert.equal(Buffer.byteLength(es5), r.sizes.es5);
  // What the engine compiled is the minified script.
  assert.equal(Buffer.byteLength(min), r.pack.source);
  assert.equal(Buffer.byteLength(min), r.sizes.minified);
});

// ---------------------------------------------------------------------------------------------
// The Duktape polyfills (Map, Set, typed-array methods) behave as the built-ins

test('packages for Duktape get the polyfills the bundle uses, JerryScript packages none', () => {
  const uses = 'var m = new Map(); var u = new Uint8Array(2).fill(1); u.join("-"); x.slice(1);';
  const duk = selectPolyfills(uses, 'duktape', '0.2.6');
  assert.deepEqual(duk.pieces, [
    'Map',
    'TypedArray.prototype.join',
    'TypedArray.prototype.slice',
    'TypedArray.prototype.fill',
    'TypedArray.prototype.toString',
  ]);
  assert.deepEqual(checkEs5Syntax(duk.code, 'polyfill.js'), []);
  assert.deepEqual(selectPolyfills(uses, 'jerryscript', '0.2.6'), { pieces: [], code: '' });
  assert.deepEqual(selectPolyfills('print(1);', 'duktape', '0.2.6'), { pieces: [], code: '' });
  // A name only used as a property is not the global.
  assert.deepEqual(selectPolyfills('o.Map = 1; var p = { Set: 2 };', 'duktape', '0.2.6').pieces, []);
});

test('the Map, Set and typed-array polyfills match the built-ins', () => {
  const probe = `
    var out = [];
    var m = new Map([['a', 1], [NaN, 2], [0, 'zero']]);
    m.set(-0, 'minus zero').set('b', 3);
    out.push(m.size, m.get(NaN), m.get(0), m.has(-0), m.delete('zz'), m.set('c', 4) === m);
    var seen = [];
    m.forEach(function (v, k, map) {
      seen.push(String(k) + '=' + String(v));
      if (k === 'a') { map.delete('b'); map.set('d', 5); }
    });
    out.push(seen.join(' '));
    var obj = {};
    m.set(obj, 'object key');
    out.push(m.get(obj), m.get({}), m.size);
    m.clear();
    out.push(m.size, m.has('a'));
    var s = new Set([1, 1, 2, NaN, NaN]);
    s.add(3).add(2);
    s.delete(1);
    var sv = [];
    s.forEach(function (v, k) { sv.push(v === k ? v : 'mismatch'); });
    out.push(s.size, sv.join(','));
    try { Map(); } catch (e) { out.push(e instanceof TypeError); }
    try { Map.prototype.get.call({}, 1); } catch (e) { out.push(e instanceof TypeError); }
    try { new Map([1]); } catch (e) { out.push(e instanceof TypeError); }
    out.push(JSON.stringify(new Map([['k', 1]])), Object.keys(new Set([1])).length);
    var u = new Uint8Array([5, 1, 4, 1]);
    out.push(String(u), u.join('|'), u.slice(-2).join(), u.slice(1, -1).length);
    out.push(u.indexOf(1), u.lastIndexOf(1), u.lastIndexOf(1, -2), u.indexOf(9));
    out.push(u.map(function (v) { return v * 100; }).join(), u.filter(function (v) { return v > 1; }).join());
    out.push(u.find(function (v) { return v > 4; }), u.findIndex(function (v) { return v === 4; }));
    out.push(u.every(function (v) { return v > 0; }), u.some(function (v) { return v > 4; }));
    out.push(u.reduce(function (a, b) { return a + b; }), u.reduceRight(function (a, b) { return a + '' + b; }, ''));
    out.push(new Uint8Array([3, 1, 2]).sort().join(), new Float64Array([3, NaN, -0, 0, -1]).sort().join());
    out.push(new Int8Array([1, 2, 3]).sort(function (a, b) { return b - a; }).join());
    out.push(new Uint8Array(4).fill(9, 1, -1).join(), new Uint8Array([1, 2, 3, 4, 5]).copyWithin(0, 3).join());
    out.push(new Uint8Array([1, 2, 3]).reverse().join(), Uint16Array.from([1, 2], function (v) { return v * 2; }).join());
    out.push(Int8Array.of(1, -1, 300).join(), Uint8Array.from({ length: 2, 0: 7, 1: 8 }).join());
    try { new Uint8Array(0).reduce(function (a) { return a; }); } catch (e) { out.push(e instanceof TypeError); }
    print(out.join(' ; '));
  `;
  const native: string[] = [];
  vm.runInNewContext(probe, { print: (x: unknown) => native.push(String(x)) });
  // The same probe where the built-ins are missing, as on Duktape.
  const { code } = selectPolyfills(probe, 'duktape', '0.2.6');
  const strip = `
    this.Map = undefined; this.Set = undefined;
    var names = ${JSON.stringify(['Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array', 'Float32Array', 'Float64Array'])};
    var proto = Object.getPrototypeOf(Uint8Array.prototype), ctor = Object.getPrototypeOf(Uint8Array);
    ['every','some','forEach','map','filter','find','findIndex','indexOf','lastIndexOf','join','reduce','reduceRight','reverse','slice','fill','copyWithin','sort','toString']
      .forEach(function (n) { delete proto[n]; });
    delete ctor.from; delete ctor.of;
    if (typeof new Uint8Array(1).fill !== 'undefined') throw new Error('not stripped');
  `;
  const polyfilled: string[] = [];
  vm.runInNewContext(strip + code + probe, { print: (x: unknown) => polyfilled.push(String(x)) });
  assert.equal(native.length, 1);
  assert.equal(polyfilled[0], native[0]);
});
