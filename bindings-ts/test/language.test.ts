// The language micro-app authors write, table by table: every accepted feature is compiled for
// each engine and run on that engine's simulator, printing the same lines on both; every refused
// one fails the build with its message at its place in the source. JerryScript runs need
// JERRYSCRIPT_DIR and are reported skipped without it.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { BuildError, bundleApp, compileApp, Engine, ensureHostTools, formatDiagnostic } from '../src/compiler';
import { ApiVersion, typingsFile } from '../src/codegen/versions';
import { workspaceMissing } from '../src/firmware/workspace';

const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-language-test-'));
process.on('exit', () => fs.rmSync(tmpRoot, { recursive: true, force: true }));

let dirCount = 0;
function project(files: Record<string, string>): string {
  const dir = path.join(tmpRoot, `p${++dirCount}`);
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

const ENGINES: { engine: Engine; skip: string | false }[] = [
  { engine: 'duktape', skip: false },
  { engine: 'jerryscript', skip: workspaceMissing('jerryscript') },
];

// ---------------------------------------------------------------------------------------------
// Accepted: compiled and run, the same output on every engine

interface Accepted {
  name: string;
  /** app.ts unless a file name is given; more files for multi-module apps. */
  files: Record<string, string>;
  expect: string[];
  api?: ApiVersion;
}

const ACCEPTED: Accepted[] = [
  {
    name: 'let and const: block scope, a closure per loop iteration',
    files: {
      'app.ts': `
        const fns: (() => number)[] = [];
        for (let i = 0; i < 3; i++) fns.push(() => i);
        let x = 1;
        { let x = 2; print(x); }
        print(fns.map((f) => f()).join(',') + ' ' + x);
      `,
    },
    expect: ['2', '0,1,2 1'],
  },
  {
    name: 'arrow functions keep this',
    files: {
      'app.ts': `
        class Counter { n = 0; bump(): number { [1, 2, 3].forEach(() => this.n++); return this.n; } }
        const sq = (v: number) => v * v;
        print(new Counter().bump() + sq(4));
      `,
    },
    expect: ['19'],
  },
  {
    name: 'classes: inheritance, super, accessors, statics, parameter properties',
    files: {
      'app.ts': `
        abstract class Shape {
          static count = 0;
          constructor(readonly name: string) { Shape.count++; }
          abstract area(): number;
          describe(): string { return this.name + ' ' + this.area().toFixed(1); }
        }
        class Rect extends Shape {
          constructor(private w: number, private h: number) { super('rect'); }
          area(): number { return this.w * this.h; }
          get wide(): boolean { return this.w > this.h; }
          set width(v: number) { this.w = v; }
        }
        class Square extends Rect {
          constructor(s: number) { super(s, s); }
          describe(): string { return 'square: ' + super.describe(); }
        }
        const r = new Rect(3, 2);
        r.width = 4;
        const q = new Square(2);
        print(r.describe() + ' ' + r.wide);
        print(q.describe() + ' ' + (q instanceof Rect) + ' ' + Shape.count);
      `,
    },
    expect: ['rect 8.0 true', 'square: rect 4.0 true 2'],
  },
  {
    name: 'template literals, tagged templates included',
    files: {
      'app.ts': `
        const who = 'device';
        const tag = (parts: TemplateStringsArray, ...v: number[]) => parts.raw.join('|') + v.join('+');
        print(\`hi \${who}, \${1 + 2}\`);
        print(tag\`a\${1}b\${2}c\`);
      `,
    },
    expect: ['hi device, 3', 'a|b|c1+2'],
  },
  {
    name: 'destructuring: arrays, objects, nested, defaults, parameters',
    files: {
      'app.ts': `
        const [a, , b = 5] = [1, 2];
        const { p, q: { r } , s = 's' } = { p: 'P', q: { r: 'R' } } as { p: string; q: { r: string }; s?: string };
        function f({ x, y = 2 }: { x: number; y?: number }, [z]: number[]): number { return x + y + z; }
        let m = 1, n = 2;
        [m, n] = [n, m];
        print([a, b, p, r, s, f({ x: 1 }, [10]), m, n].join(' '));
      `,
    },
    expect: ['1 5 P R s 13 2 1'],
  },
  {
    name: 'spread and rest: arrays, calls, objects, parameters',
    files: {
      'app.ts': `
        const xs = [1, 2];
        const ys = [0, ...xs, 3];
        const sum = (...ns: number[]) => ns.reduce((t, v) => t + v, 0);
        const base = { a: 1, b: 2 };
        const more = { ...base, b: 3, c: 4 };
        const { a, ...others } = more;
        print(ys.join(',') + ' ' + sum(...ys) + ' ' + Math.max(...xs));
        print(a + ' ' + JSON.stringify(others));
      `,
    },
    expect: ['0,1,2,3 6 2', '1 {"b":3,"c":4}'],
  },
  {
    name: 'for...of over arrays and strings, with destructuring',
    files: {
      'app.ts': `
        let out = '';
        for (const v of [1, 2, 3]) out += v;
        for (const ch of 'ab') out += ch;
        for (const [k, v] of [['x', 1], ['y', 2]] as [string, number][]) out += k + v;
        print(out);
      `,
    },
    expect: ['123abx1y2'],
  },
  {
    name: 'default parameters',
    files: {
      'app.ts': `
        function greet(name = 'you', mark: string = '!'): string { return 'hi ' + name + mark; }
        print(greet() + ' ' + greet('Ann') + ' ' + greet(undefined, '?'));
      `,
    },
    expect: ['hi you! hi Ann! hi you?'],
  },
  {
    name: 'object literals: shorthand, computed names, methods, accessors',
    files: {
      'app.ts': `
        const key = 'dyn';
        const x = 1;
        const o = { x, [key]: 2, twice(v: number) { return v * 2; }, get three() { return 3; } };
        const names: { [k: string]: number } = { [key + 1]: 5 };
        print(o.x + o.dyn + o.twice(5) + o.three + names.dyn1);
      `,
    },
    expect: ['21'],
  },
  {
    name: 'async and await, with errors caught',
    files: {
      'app.ts': `
        async function later(v: number): Promise<number> { return v * 2; }
        async function failing(): Promise<number> { throw new Error('nope'); }
        async function main(): Promise<void> {
          const a = await later(2);
          try { await failing(); } catch (e) { print('caught ' + (e as Error).message); }
          const all = await Promise.all([later(1), later(3)]);
          print(a + ' ' + all.join(','));
        }
        main().then(() => print('done'));
        print('first');
      `,
    },
    expect: ['first', 'caught nope', '4 2,6', 'done'],
  },
  {
    name: 'generators: next, return values, arguments passed in',
    files: {
      'app.ts': `
        function* counter(limit: number): Generator<number, string, number | undefined> {
          let i = 0;
          while (i < limit) { const skip = yield i; i += skip ?? 1; }
          return 'end';
        }
        const g = counter(5);
        const seen: (number | string)[] = [];
        let r = g.next();
        while (!r.done) { seen.push(r.value); r = g.next(r.value === 1 ? 2 : undefined); }
        seen.push(r.value);
        print(seen.join(' '));
      `,
    },
    expect: ['0 1 3 4 end'],
  },
  {
    name: 'optional chaining, nullish coalescing, logical assignment, exponent',
    files: {
      'app.ts': `
        type N = { child?: { v?: number } } | undefined;
        const a: N = { child: { v: 0 } };
        const b = undefined as N;
        let c: number | undefined;
        c ??= 7;
        let d = 0;
        d ||= 2;
        print([a?.child?.v ?? 'none', b?.child?.v ?? 'none', c, d, 2 ** 10].join(' '));
      `,
    },
    expect: ['0 none 7 2 1024'],
  },
  {
    name: 'enums, namespaces, numeric literals, catch without a binding',
    files: {
      'app.ts': `
        enum Color { Red = 1, Green, Blue = 'b' }
        namespace Util { export const twice = (n: number) => n * 2; }
        let ok = 'no';
        try { JSON.parse('{'); } catch { ok = 'yes'; }
        print([Color.Green, Color[2], Color.Blue, Util.twice(0b101), 0o17, 1_000].join(' ') + ' ' + ok);
      `,
    },
    expect: ['2 Green b 10 15 1000 yes'],
  },
  {
    name: 'modules: imports from other files, tree-shaken',
    files: {
      'app.ts': "import { area, Unit } from './geo/shapes';\nimport label from './label';\nprint(label(area(2, 3), Unit.Cm));\n",
      'geo/shapes.ts': "export enum Unit { Cm = 'cm', M = 'm' }\nexport const area = (w: number, h: number) => w * h;\nexport function unused(): string { return 'never shipped'; }\n",
      'label.ts': "import { Unit } from './geo/shapes';\nexport default (v: number, u: Unit) => `${v} ${u}2`;\n",
    },
    expect: ['6 cm2'],
  },
  {
    name: 'promises: then chains, race, rejections',
    files: {
      'app.ts': `
        Promise.race([new Promise<string>((res) => res('fast')), Promise.resolve('also')])
          .then((v) => { print(v); return Promise.reject(new Error('bad')); })
          .then(() => print('not here'), (e: Error) => print('rejected ' + e.message));
      `,
    },
    expect: ['fast', 'rejected bad'],
  },
  {
    name: 'typed arrays with their ES2015 methods',
    files: {
      'app.ts': `
        const u = new Uint8Array(4).fill(7, 1, 3);
        const doubled = u.map((v) => v * 2);
        const f = Float32Array.from([3, 1, 2]).sort();
        const i = Int16Array.of(-1, 5, -3);
        print(String(u) + ' ' + doubled.join('-') + ' ' + u.slice(1, 3).length);
        print(f.join(',') + ' ' + i.filter((v) => v < 0).join(',') + ' ' + i.indexOf(5) + ' ' + i.reduce((a, b) => a + b));
        print(new Uint8Array(new ArrayBuffer(2)).every((v) => v === 0) + ' ' + u.some((v) => v > 6) + ' ' + u.findIndex((v) => v === 7));
      `,
    },
    expect: ['0,7,7,0 0-14-14-0 2', '1,2,3 -1,-3 1 1', 'true true 1'],
  },
  {
    name: 'Map and Set (API 0.2.6)',
    files: {
      'app.ts': `
        const m = new Map<string | number, number>([['a', 1], [NaN, 2]]);
        m.set('b', 3).set('a', 4);
        m.delete('b');
        const keys: string[] = [];
        m.forEach((v, k) => keys.push(k + '=' + v));
        const s = new Set([1, 2, 2, 3]);
        s.delete(1);
        print(keys.join(' ') + ' ' + m.get(NaN) + ' ' + m.has('b') + ' ' + m.size);
        print(s.size + ' ' + s.has(2) + ' ' + s.has(1));
      `,
    },
    expect: ['a=4 NaN=2 2 false 2', '2 true false'],
    api: '0.2.6',
  },
  {
    name: 'DataView (API 0.2.6)',
    files: {
      'app.ts': `
        const v = new DataView(new ArrayBuffer(4));
        v.setUint16(0, 0x1234);
        v.setInt16(2, -2, true);
        print(v.getUint8(0) + ' ' + v.getUint8(1) + ' ' + v.getInt16(2, true) + ' ' + v.getUint16(0, true));
      `,
    },
    expect: ['18 52 -2 13330'],
    api: '0.2.6',
  },
  {
    name: 'a JavaScript app: lowered, not type-checked, sloppy mode kept',
    files: {
      'app.js': "var parts = ['a', 'b'];\nimplicitGlobal = parts.length;\nconst f = (x) => `${x}${implicitGlobal}`;\nprint(f(parts.join('')));\n",
    },
    expect: ['ab2'],
    api: '0.1.5',
  },
];

for (const c of ACCEPTED) {
  for (const { engine, skip } of ENGINES) {
    test(`accepted, ${engine}: ${c.name}`, { skip }, async () => {
      const [, sim] = await ensureHostTools(['beacon-pack', 'beacon-sim'], engine);
      const dir = project(c.files);
      const entry = path.join(dir, Object.keys(c.files)[0]);
      const outFile = path.join(dir, `app-${engine}.bapp`);
      await compileApp({ entry, apiVersion: c.api ?? '0.2.6', engine, outFile });
      const run = spawnSync(sim, [outFile], { encoding: 'utf8', timeout: 60_000 });
      assert.equal(run.stdout, c.expect.map((l) => l + '\n').join(''), run.stderr);
      assert.equal(run.status, 0, run.stderr);
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Refused: the build fails, with the reason at the position

interface Refused {
  name: string;
  file?: string;
  source: string;
  api?: ApiVersion;
  /** Each expected error: line, column and a pattern its message matches. */
  errors: [number, number, RegExp][];
}

const REFUSED: Refused[] = [
  {
    name: 'BigInt literals and BigInt()',
    source: 'const a = 10n;\nconst b = BigInt(3);\n',
    errors: [
      [1, 11, /^BigInt is not available on the device \(API 0\.2\.6/],
      [2, 11, /Cannot find name 'BigInt' — BigInt \(ES2020\) is not available on the device/],
    ],
  },
  {
    name: 'regular expression features the engines lack',
    source:
      "const a = /(?<year>\\d{4})/;\nconst b = /(?<=a)b/;\nconst c = /x/u;\nconst d = /x/s;\nconst e = new RegExp('(?<!a)b', 'y');\nconst ok = /[(?<=]\\(?<x/gim;\n",
    errors: [
      [1, 11, /a named group \(\?<name>\.\.\.\), which the device does not have \(its regular expressions are ES5: flags g, i, m only\)/],
      [2, 11, /uses lookbehind \(\?<=\.\.\.\)/],
      [3, 11, /uses the 'u' flag/],
      [4, 11, /uses the 's' flag/],
      [5, 11, /uses the 'y' flag, negative lookbehind \(\?<!\.\.\.\)/],
    ],
  },
  {
    name: 'regular expressions in Annex B syntax, which the engines read differently',
    // As strings where TypeScript's own check of literals would report them first.
    source:
      "const a = new RegExp('\\\\8');\nconst b = /a{,2}/;\nconst c = new RegExp('(?=a)+');\nconst d = new RegExp('\\\\c1|\\\\x1');\nconst e = new RegExp('\\\\07');\nconst ok = /a{2,}\\{[\\d-x]\\0(?!a)b\\x41/;\n",
    errors: [
      [1, 11, /uses the escape \\8 \(write 8 or \\x38\): Annex B syntax, which JerryScript \(the device\) accepts and Duktape \(the simulator\) refuses or reads differently$/],
      [2, 11, /a '\{' that starts no quantifier/],
      [3, 11, /a quantified lookahead/],
      [4, 11, /\\c without a control letter, \\x without two hex digits: Annex B/],
      [5, 11, /an octal escape/],
    ],
  },
  {
    name: 'for...of, spread and destructuring of something that is not an array',
    source:
      "const s = new Set<number>([1]);\nfor (const v of s) print(v);\nconst all = [...s];\nfunction* g() { yield 1; }\nfor (const v of g()) print(v);\n",
    errors: [
      [2, 17, /Set<number>.* needs the iteration protocol, which the device does not have \(API 0\.2\.6\): for\.\.\.of, spread and destructuring work on arrays and strings/],
      [3, 17, /needs the iteration protocol/],
      [5, 17, /over 'Generator<number, void, unknown>' needs the iteration protocol/],
    ],
  },
  {
    name: 'built-ins the device does not have',
    source:
      "const v = Object.entries({ a: 1 });\nconst f = [1].find((x: number) => x > 0);\nconst p = new Proxy({}, {});\nconst y = Symbol('s');\nconst g = globalThis;\n",
    errors: [
      [1, 18, /Property 'entries' does not exist on type 'ObjectConstructor' — Object\.entries \(ES2017\) is not available on the device \(API 0\.2\.6\)$/],
      [2, 15, /Array\.prototype\.find \(ES2015\) is not available on the device/],
      [3, 15, /Proxy \(ES2015\) is not available on the device/],
      [4, 11, /Symbol \(ES2015\) is not available on the device/],
      [5, 11, /globalThis \(ES2020\) is not available on the device/],
    ],
  },
  {
    name: 'Map, Set and DataView before 0.2.6',
    source: 'const m = new Map();\nconst d: DataView | null = null;\n',
    api: '0.1.5',
    errors: [
      [1, 15, /Cannot find name 'Map' — Map is in API 0\.2\.6, not 0\.1\.5$/],
      [2, 10, /Cannot find name 'DataView' — DataView is in API 0\.2\.6, not 0\.1\.5$/],
    ],
  },
  {
    name: 'async generators, for await, private names, import.meta, dynamic import',
    source:
      "async function* ag() { yield 1; }\nasync function f() { for await (const x of [Promise.resolve(1)]) print(x); }\nclass A { #secret = 1; get() { return this.#secret; } }\nprint(import.meta);\nimport('./other');\n",
    errors: [
      [1, 17, /async generators need async iteration, which the device does not have/],
      [2, 22, /for await needs async iteration/],
      [3, 11, /private names \(#name\) cannot be lowered to ES5/],
      [3, 44, /private names/],
      [4, 7, /import\.meta has no meaning on the device/],
      [5, 1, /dynamic import\(\) is not supported/],
    ],
  },
  {
    name: 'an API function of a later version',
    source: "const t = timers.count('1s', 2, () => {});\n",
    api: '0.0.9',
    errors: [[1, 18, /Property 'count' does not exist on type 'typeof timers' — timers\.count is in API 0\.2\.6, not 0\.0\.9$/]],
  },
  {
    name: 'a JavaScript app: API names of a later version',
    file: 'app.js',
    source: "var t = timers.count('1s', 2, function () {});\nvar info = modem.getInfo();\nvar fine = timers.single('1s', function () {});\n",
    api: '0.0.9',
    errors: [
      [1, 16, /^timers\.count is in API 0\.2\.6, not 0\.0\.9$/],
      [2, 12, /^modem is in API 0\.1\.5 and 0\.2\.6, not 0\.0\.9$/],
    ],
  },
  {
    name: 'a JavaScript app: members no API version has, with the closest names',
    file: 'app.js',
    source: "var p = ble.build.estimoteLocaton();\nmodem.setTech('LTE');\nvar q = ble.build.estimoteNearable();\nvar ok = ble.build.vendorLocation();\n",
    api: '0.1.5',
    errors: [
      [1, 19, /^ble\.build\.estimoteLocaton is in no API version \(0\.0\.9, 0\.1\.5 and 0\.2\.6\); did you mean ble\.build\.estimoteLocation\?$/],
      [2, 7, /^modem\.setTech is in no API version .*; did you mean modem\.\w+\?$/],
      [3, 19, /^ble\.build\.estimoteNearable is in API 0\.2\.6, not 0\.1\.5$/],
    ],
  },
  {
    name: 'a JavaScript app: a typo whose closest name is of another version',
    file: 'app.js',
    source: "var n = ble.build.estimoteNearabel;\n",
    api: '0.1.5',
    errors: [[1, 19, /did you mean ble\.build\.estimoteNearable \(API 0\.2\.6\)\?$/]],
  },
  {
    name: 'a JavaScript app: missing built-ins, for...of over a Set, BigInt',
    file: 'app.js',
    source: "var s = new Set([1]);\nfor (var v of s) print(v);\nvar e = Object.entries({});\nvar n = 5n;\nvar w = new WeakSet();\n",
    errors: [
      [2, 15, /for\.\.\.of over 'Set<number>' needs iteration, which the device does not have \(API 0\.2\.6\)/],
      [3, 16, /Object\.entries \(ES2017\) is not available on the device/],
      [4, 9, /BigInt is not available/],
      [5, 13, /WeakSet \(ES2015\) is not available on the device/],
    ],
  },
];

for (const c of REFUSED) {
  test(`refused: ${c.name}`, async () => {
    const file = c.file ?? 'app.ts';
    const dir = project({ [file]: c.source, 'other.ts': 'export const x = 1;\n' });
    const api = c.api ?? '0.2.6';
    let err: BuildError | undefined;
    try {
      await bundleApp({ entry: path.join(dir, file), apiVersion: api, typingsFile: typingsFile(api) });
    } catch (e) {
      if (!(e instanceof BuildError)) throw e;
      err = e;
    }
    assert.ok(err, 'the build was refused');
    const errors = err.diagnostics.filter((d) => d.severity === 'error');
    const shown = errors.map((d) => formatDiagnostic(d, dir)).join('\n');
    assert.equal(errors.length, c.errors.length, shown);
    c.errors.forEach(([line, column, re], i) => {
      const d = errors[i];
      assert.equal(d.file, path.join(dir, file), shown);
      assert.deepEqual([d.line, d.column], [line, column], shown);
      assert.match(d.message, re, shown);
      // One line each: file:line:column: error CODE: message.
      assert.doesNotMatch(formatDiagnostic(d), /\n/);
    });
  });
}
