// The codegen: golden files for a declaration set that uses the whole vocabulary (set
// UPDATE_GOLDEN=1 to rewrite them after an intended change), the generated C compiled, and every
// unsupported construct reported with its position.
import { spawnSync } from 'child_process';
import * as assert from 'assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { after, test } from 'node:test';
import { emitC, type CGlue } from '../src/codegen/emit-c';
import { DeclarationError, generate, parseApi } from '../src/codegen/index';
import { toolsRoot } from '../src/codegen/versions';

const tools = toolsRoot();
const repo = path.dirname(tools);
const casesDir = path.join(tools, 'test', 'codegen');

const tempDirs: string[] = [];
after(() => tempDirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}

/** A temp api dir holding the real vocabulary plus the given declaration files. */
function apiDir(files: Record<string, string>): string {
  const dir = tempDir('beacon-codegen-');
  fs.copyFileSync(path.join(tools, 'api', 'types.d.ts'), path.join(dir, 'types.d.ts'));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

function caseFiles(name: string): Record<string, string> {
  const dir = path.join(casesDir, name, 'api');
  return Object.fromEntries(fs.readdirSync(dir).map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf8')]));
}

test('golden: basic', () => {
  const out = generate(apiDir(caseFiles('basic')), path.join(casesDir, 'basic', 'runtime'));
  const expectedDir = path.join(casesDir, 'basic', 'expected');
  for (const [rel, text] of out) {
    const file = path.join(expectedDir, rel.replace(/\//g, '__'));
    if (process.env.UPDATE_GOLDEN) {
      fs.mkdirSync(expectedDir, { recursive: true });
      fs.writeFileSync(file, text);
    }
    assert.equal(text, fs.readFileSync(file, 'utf8'), `${rel} differs from ${path.relative(repo, file)}`);
  }
});

test('generated C compiles with the glue core', () => {
  const out = generate(apiDir(caseFiles('basic')), path.join(casesDir, 'basic', 'runtime'));
  const r = compileGlue({
    typesHeader: out.get('src/runtime/generated/api_types.h')!,
    typesSource: out.get('src/runtime/generated/api_types.c')!,
    header: out.get('src/glue/generated/api_glue.h')!,
    source: out.get('src/glue/generated/api_glue.c')!,
  });
  assert.equal(r.status, 0, r.stderr);
});

test('IR: versions, overloads, defaults and enums', () => {
  const api = parseApi(apiDir(caseFiles('basic')));
  const configure = api.functions.find((f) => f.owner === 'demo' && f.name === 'configure')!;
  assert.equal(configure.native, 'rt_demo_configure');
  assert.deepEqual(configure.overloads.map((o) => o.mask), [0b110, 0b001]);
  const power = configure.overloads[0].params[1];
  assert.deepEqual(power.type, { kind: 'snapDown', values: [-40, -20, -4, 0, 4] });
  assert.equal(power.defaultValue, -4);
  assert.deepEqual(configure.overloads[0].throws, [{ code: 'ESR0004', text: 'when full', mask: 0b110 }]);
  const gap = api.functions.find((f) => f.name === 'gap')!;
  assert.equal(gap.overloads[0].mask, 0b101);
  const fast = api.consts.find((k) => k.name === 'FAST')!;
  assert.deepEqual(fast.values, [{ mask: 0b001, json: '0' }, { mask: 0b110, json: '100' }]);
  const watch = api.functions.find((f) => f.name === 'watch')!;
  assert.equal(watch.overloads[0].params[0].nullable, true);
  const every = api.functions.find((f) => f.name === 'open')!.overloads[0].params[2];
  assert.deepEqual(every.type, { kind: 'interval', unit: 's', min: 120, max: 7776000 });
  assert.equal(every.typeText, 'number | string');
  const paint = api.functions.find((f) => f.name === 'paint')!.overloads[0];
  assert.deepEqual(paint.params[0].type, { kind: 'numTuple', length: 3, min: 0, max: 1 });
  assert.equal(paint.params[0].typeText, 'readonly number[]');
  assert.equal(paint.params[0].invalidCode, 'ESR1703');
  assert.deepEqual(paint.throws.map((t) => [t.code, t.mask, t.text]),
    [['ESR1703', 0b110, 'bad colour'], ['ESR0004', 0b001, 'no paint']]);
  assert.deepEqual(paint.params[1].type, { kind: 'record', name: 'DemoSpot' });
  assert.equal(paint.params[1].nullable, true);
  const channels = api.records.find((r) => r.name === 'DemoOptions')!.fields[1];
  assert.deepEqual(channels.defaultValue, [37, 39]);
  const tag = api.functions.find((f) => f.name === 'tag')!.overloads[0].params[0];
  assert.deepEqual(tag.type, { kind: 'object' });
  assert.equal(tag.typeText, '{ [uuid: string]: ArrayBuffer; }');
});

test('C glue: defaults of OneOfEach are masks, null records clear has_, @invalid sets the code', () => {
  const out = generate(apiDir(caseFiles('basic')), path.join(casesDir, 'basic', 'runtime'));
  const source = out.get('src/glue/generated/api_glue.c')!;
  const header = out.get('src/runtime/generated/api_types.h')!;
  // channels default [37, 39]: bits 0 and 2
  assert.match(source, /\{ "channels", GLUE_ONE_OF_EACH, GLUE_OPTIONAL \| GLUE_HAS_DEFAULT, 0x7, 0, [^}]*, 5\.0, &/);
  assert.match(source, /\{ "rgb", GLUE_NUM_TUPLE, 0, 0xff, 3, offsetof\([^)]*\), GLUE_NO_HAS, 1703, 0\.0, 1\.0, /);
  assert.match(header, /bool has_spot;\n\trt_DemoSpot_t spot;/);
  assert.match(header, /rt_tuple_t rgb;/);
});

/** The runtime's headers live one folder per concern (src/runtime/core, ble, ...): every folder. */
function runtimeIncludes(): string[] {
  const runtime = path.join(repo, 'src/runtime');
  return fs.readdirSync(runtime, { withFileTypes: true }).filter((e) => e.isDirectory())
    .map((e) => `-I${path.join(runtime, e.name)}`);
}

/** Compile generated C (the services' contract and the glue) with the glue core and the runtime
 * headers; returns the compiler's status and messages. */
function compileGlue(glue: CGlue): { status: number | null; stderr: string } {
  const dir = tempDir('beacon-glue-');
  const files: [string, string][] = [['api_types.h', glue.typesHeader], ['api_types.c', glue.typesSource],
    ['api_glue.h', glue.header], ['api_glue.c', glue.source]];
  for (const [name, text] of files) fs.writeFileSync(path.join(dir, name), text);
  let stderr = '';
  for (const unit of ['api_types', 'api_glue']) {
    const r = spawnSync('cc', ['-std=c11', '-Wall', '-Wextra', '-Werror', '-Wno-unused-parameter', '-c',
      '-o', path.join(dir, `${unit}.o`), `-I${dir}`, `-I${path.join(repo, 'src/glue')}`,
      ...runtimeIncludes(), `-I${path.join(repo, 'src/engine')}`,
      path.join(dir, `${unit}.c`)], { encoding: 'utf8' });
    stderr += r.stderr;
    if (r.status !== 0) return { status: r.status, stderr };
  }
  return { status: 0, stderr };
}

test('C glue for some versions: their tables only, the runtime\'s view unchanged', () => {
  const api = parseApi(apiDir(caseFiles('basic')));
  const full = emitC(api);
  const only026 = emitC(api, { versions: ['0.2.6'] });
  const pair = emitC(api, { versions: ['0.2.6', '0.0.9'] });
  assert.deepEqual(emitC(api, { versions: ['0.0.9', '0.1.5', '0.2.6'] }), full);
  // The header differs in the version numbers alone: struct layouts, has_ flags and prototypes
  // are the full build's, since the runtime defines every function.
  const noVersions = (h: string) => h.replace(/#define API_V_.*\n|#define API_VERSION_COUNT.*\n/g, '');
  assert.equal(noVersions(only026.typesHeader), noVersions(full.typesHeader));
  assert.match(only026.typesHeader, /#define API_V_0_2_6 0\n#define API_VERSION_COUNT 1\n/);
  assert.doesNotMatch(only026.typesHeader, /API_V_0_0_9/);
  assert.match(pair.typesHeader, /#define API_V_0_0_9 0\n#define API_V_0_2_6 1\n/);
  assert.match(only026.typesSource, /api_versions\[API_VERSION_COUNT\] = \{\n\t0x000206u, \/\* 0\.2\.6 \*\/\n\};/);
  // Masks are of the chosen versions: gap is 0.0.9 and 0.2.6, so both bits of the pair.
  assert.match(pair.source, /\{ "demo", "gap", glue_w_demo_gap, 0x3 \}/);
  assert.match(only026.source, /\{ "demo", "gap", glue_w_demo_gap, 0x1 \}/);
  assert.match(only026.source, /static const char \*const glue_versions\[\] = \{\n\t"0\.2\.6",\n\};/);
  // configure's 0.0.9 form keeps its place (the runtime reads the variant by declaration order)
  // but nothing else of it.
  assert.match(only026.source, /glue_o_demo_configure\[\] = \{\n\t\{ 0x1, 3, 1, glue_p_demo_configure_0 \},\n\t\{ 0x0, 0, 0, NULL \},/);
  assert.doesNotMatch(only026.source, /glue_p_demo_configure_1/);
  // A version's constants only: FAST is 0 in 0.0.9, 100 later.
  assert.match(only026.source, /\{ "demo\.Mode", "FAST", "100", 0x1 \}/);
  assert.doesNotMatch(only026.source, /"FAST", "0"/);
  const only009 = emitC(api, { versions: ['0.0.9'] });
  // inner.deep and the handle's level() are 0.2.6: a 0.0.9 build has no wrapper for them.
  assert.match(full.source, /glue_w_demo_inner_deep/);
  assert.doesNotMatch(only009.source, /glue_w_demo_inner_deep/);
  assert.doesNotMatch(only009.source, /glue_w_DemoHandle_level/);
  for (const [name, glue] of [['0.2.6', only026], ['0.0.9', only009], ['0.0.9 + 0.2.6', pair]] as const) {
    const r = compileGlue(glue);
    assert.equal(r.status, 0, `${name}: ${r.stderr}`);
  }
  assert.throws(() => emitC(api, { versions: ['0.3.0'] }), /unknown API version '0\.3\.0'/);
  assert.throws(() => emitC(api, { versions: [] }), /no API version given/);
});

test('typings: a version shows only the errors it throws', () => {
  const out = generate(apiDir(caseFiles('basic')), path.join(casesDir, 'basic', 'runtime'));
  const v009 = out.get('bindings-ts/types/beacon-0.0.9.d.ts')!;
  const v026 = out.get('bindings-ts/types/beacon-0.2.6.d.ts')!;
  assert.match(v009, /@throws ESR0004 no paint/);
  assert.doesNotMatch(v009, /ESR1703/);
  assert.match(v026, /@throws ESR1703 bad colour/);
  assert.doesNotMatch(v026, /no paint/);
});

test('the real declarations parse and cover every version', () => {
  const api = parseApi(path.join(tools, 'api'));
  for (const fn of api.functions) {
    const mask = fn.overloads.reduce((m, o) => m | o.mask, 0);
    assert.notEqual(mask, 0, `${fn.owner}.${fn.name} exists in no version`);
  }
});

test('@alias: the maker\'s name and the spec\'s vendor spelling are one function, in every version', () => {
  const api = parseApi(path.join(tools, 'api'));
  for (const [maker, vendor] of [['estimoteLocation', 'vendorLocation'], ['estimoteLocationTrigger', 'vendorLocationTrigger'],
    ['estimoteTelemetry', 'vendorTelemetry'], ['estimoteNearable', 'vendorNearable']]) {
    const a = api.functions.find((f) => f.owner === 'ble.build' && f.name === maker);
    const b = api.functions.find((f) => f.owner === 'ble.build' && f.name === vendor);
    assert.ok(a && b, `${maker} and ${vendor} are declared`);
    assert.equal(b.aliasOf, maker);
    assert.equal(a.native, b.native, 'one native serves both');
    const mask = (f: typeof a) => f.overloads.reduce((m, o) => m | o.mask, 0);
    assert.equal(mask(a), mask(b), `${vendor} exists where ${maker} does`);
  }
  const out = generate(path.join(tools, 'api'), path.join(repo, 'src', 'runtime'));
  for (const v of ['0.0.9', '0.1.5', '0.2.6']) {
    const typings = out.get(`bindings-ts/types/beacon-${v}.d.ts`)!;
    assert.match(typings, /function estimoteLocation\(/);
    assert.match(typings, /function vendorLocation\(/);
  }
  assert.match(out.get('docs/api.md')!, /\| `ble\.build\.vendorLocation` \(alias of `estimoteLocation`\) \| yes \| yes \| yes \| yes \|/);
  assert.match(out.get('src/glue/generated/api_glue.c')!, /"ble\.build", "vendorNearable", glue_w_ble_build_vendorNearable, 0x4 \}/);
});

test('@rejects: argument errors of a promise-returning function become rejections', () => {
  const dir = apiDir({ 'x.d.ts': '/**\n * @rejects\n */\ndeclare function wait(ms: Int<0, 10>): Promise<void>;\n' +
    'declare function now(ms: Int<0, 10>): Promise<void>;\n' });
  const source = emitC(parseApi(dir)).source;
  const body = (name: string) => source.slice(source.indexOf(`glue_w_${name}(const eng_call_t *call)\n{`)).split('\n}\n')[0];
  assert.match(body('wait'), /return glue_reject\(error\);/);
  assert.doesNotMatch(body('now'), /glue_reject/);
  assert.match(body('now'), /return error;/);
  assert.throws(() => parseApi(apiDir({ 'y.d.ts': '/** @rejects */\ndeclare function f(a: number): void;' })),
    /@rejects needs a function that returns a promise/);
});

const errors: [string, string, RegExp][] = [
  ['no return type', 'declare function f(a: number);', /x\.d\.ts\(1,18\): error TS7010|functions need a declared return type/],
  ['union', 'declare function f(a: number | boolean): void;', /x\.d\.ts:1:\d+: unsupported union type/],
  ['required after optional', 'declare function f(a?: number, b: number): void;', /A required parameter cannot follow an optional parameter|required parameter b after an optional one/],
  ['bad @values', 'declare namespace n {\n  enum E {\n    /** @values 9.9.9=1 */\n    A = 1,\n  }\n}', /bad @values entry '9\.9\.9=1'/],
  ['indistinct overloads', 'declare function f(a: number): void;\ndeclare function f(b: Int<0, 4>): void;', /x\.d\.ts:2:1: overload cannot be told apart/],
  ['class', 'declare class C {}', /x\.d\.ts:1:1: unsupported declaration \(ClassDeclaration\)/],
  ['default without optional', '/** @default a 1 */\ndeclare function f(a: number): void;', /a has a @default but is not optional/],
  ['constant without value', 'declare namespace n { const X: number; }', /constants need a @value tag/],
  ['type error', 'declare function f(a: Nope): void;', /Cannot find name 'Nope'/],
  ['@invalid without @throws', '/** @invalid a ESR1703 */\ndeclare function f(a: number): void;', /@invalid a ESR1703 needs a matching @throws ESR1703/],
  ['@invalid unknown parameter', '/**\n * @throws ESR1703 x\n * @invalid b ESR1703\n */\ndeclare function f(a: number): void;', /@invalid names unknown parameter b/],
  ['@throws scope outside the declaration', '/**\n * @since 0.2.6\n * @throws ESR0004 [until 0.1.5] x\n */\ndeclare function f(): void;', /names no version this declaration has/],
  ['default of the wrong type', '/** @default a "x" */\ndeclare function f(a?: number): void;', /bad @default "x": expected a number/],
  ['default out of range', '/** @default a 9 */\ndeclare function f(a?: Int<0, 4>): void;', /bad @default 9: outside 0\.\.4/],
  ['default not in OneOfEach', 'interface R {\n  /** @default [36] */\n  c?: OneOfEach<[37, 38]>;\n}\ndeclare function f(r?: R): void;', /bad @default \[36\]/],
  ['tuple too long', 'declare function f(a: NumTuple<5, 0, 1>): void;', /NumTuple length must be 1 to 4/],
  ['@alias of a bad name', '/** @alias 9x */\ndeclare function f(): void;', /bad @alias name '9x'/],
  ['object literal type', 'declare function f(a: { x: number }): void;', /object type literals are supported only as index signatures/],
];

for (const [name, source, message] of errors) {
  test(`declaration error: ${name}`, () => {
    assert.throws(() => parseApi(apiDir({ 'x.d.ts': source })), (err: unknown) => {
      assert.ok(err instanceof DeclarationError, `not a DeclarationError: ${err}`);
      assert.match(err.message, message);
      return true;
    });
  });
}
