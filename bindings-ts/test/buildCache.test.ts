// The build cache (src/compiler/buildCache.ts) serves a package only while everything it was
// built from is unchanged: the sources, what module resolution could pick, the options, the
// typings, the compiler and beacon-pack. A stale package is never served, a damaged entry is
// rebuilt, and type errors are reported as without a cache.
import * as assert from 'assert/strict';
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { test } from 'node:test';
import { BuildError, compileApp, CompileResult, generateKeyPair, readPackageHeader, readSignatureBlock } from '../src/compiler';
import { BuildCache, BuiltPackage } from '../src/compiler/buildCache';

const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-cache-test-'));
process.on('exit', () => fs.rmSync(tmpRoot, { recursive: true, force: true }));
// This file's own cache (read when a build starts), so that entries are the ones these tests made.
process.env.BEACON_CACHE_DIR = path.join(tmpRoot, 'cache');
delete process.env.BEACON_BUILD_CACHE;

const CACHE = path.join(tmpRoot, 'cache', 'builds');

let dirCount = 0;
function project(files: Record<string, string>): string {
  const dir = path.join(tmpRoot, `p${++dirCount}`);
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

async function build(entry: string, extra: Partial<Parameters<typeof compileApp>[0]> = {}): Promise<{ r: CompileResult; bytes: Buffer }> {
  const outFile = extra.outFile ?? path.join(path.dirname(entry), 'out', `${path.basename(entry, path.extname(entry))}.bapp`);
  fs.mkdirSync(path.dirname(outFile), { recursive: true });
  const r = await compileApp({ entry, apiVersion: '0.2.6', outFile, ...extra });
  return { r, bytes: fs.readFileSync(r.outFile) };
}

/** Whether a package carries a string constant (both engines keep them as bytes in the bytecode). */
function carries(pkg: Buffer, text: string): boolean {
  return pkg.includes(Buffer.from(text, 'utf8'));
}

function entries(): string[] {
  return fs.existsSync(CACHE) ? fs.readdirSync(CACHE).filter((n) => n.endsWith('.json')).map((n) => path.join(CACHE, n)) : [];
}

test('an unchanged app comes from the cache, byte for byte, with its report', async () => {
  const dir = project({ 'app.ts': "import { greet } from './greet';\nprint(greet('cache'));\n", 'greet.ts': "export const greet = (n: string): string => 'hello ' + n;\n" });
  const first = await build(path.join(dir, 'app.ts'));
  assert.equal(first.r.cached, false);
  const second = await build(path.join(dir, 'app.ts'));
  assert.equal(second.r.cached, true);
  assert.deepEqual(second.bytes, first.bytes);
  assert.deepEqual(second.r.sizes, first.r.sizes);
  assert.deepEqual(second.r.modules, first.r.modules);
  assert.deepEqual(fs.readFileSync(second.r.mapFile, 'utf8'), fs.readFileSync(first.r.mapFile, 'utf8'));
  assert.equal(typeof readPackageHeader(second.bytes), 'object', 'the cached package is intact');
});

test('a changed imported module is rebuilt: the old package is never served', async () => {
  const dir = project({ 'app.ts': "import { word } from './word';\nprint(word);\n", 'word.ts': "export const word = 'first-version';\n" });
  const a = await build(path.join(dir, 'app.ts'));
  assert.ok(carries(a.bytes, 'first-version'));
  fs.writeFileSync(path.join(dir, 'word.ts'), "export const word = 'second-version';\n");
  const b = await build(path.join(dir, 'app.ts'));
  assert.equal(b.r.cached, false);
  assert.ok(carries(b.bytes, 'second-version') && !carries(b.bytes, 'first-version'));
  // Back to the first text: that package again, rebuilt or not, never the second one.
  fs.writeFileSync(path.join(dir, 'word.ts'), "export const word = 'first-version';\n");
  const c = await build(path.join(dir, 'app.ts'));
  assert.ok(carries(c.bytes, 'first-version') && !carries(c.bytes, 'second-version'));
});

test('a changed entry is rebuilt, even with the same size and modification time', async () => {
  const dir = project({ 'app.ts': "print('aaaa');\n" });
  const entry = path.join(dir, 'app.ts');
  const when = new Date('2025-01-01T00:00:00Z');
  fs.utimesSync(entry, when, when);
  const a = await build(entry);
  fs.writeFileSync(entry, "print('bbbb');\n");
  fs.utimesSync(entry, when, when);
  const b = await build(entry);
  assert.equal(b.r.cached, false);
  assert.ok(carries(b.bytes, 'bbbb') && !carries(b.bytes, 'aaaa'));
  assert.notDeepEqual(a.bytes, b.bytes);
});

test('a new file that module resolution prefers is picked up (util.ts beside util.js)', async () => {
  const dir = project({
    'app.ts': "import { which } from './util';\nprint(which);\n",
    'util.js': "export var which = 'from-js';\n",
    'util.d.ts': 'export declare const which: string;\n',
  });
  const a = await build(path.join(dir, 'app.ts'));
  assert.ok(carries(a.bytes, 'from-js'));
  fs.writeFileSync(path.join(dir, 'util.ts'), "export const which: string = 'from-ts';\n");
  const b = await build(path.join(dir, 'app.ts'));
  assert.equal(b.r.cached, false);
  assert.ok(carries(b.bytes, 'from-ts'), 'the new module is bundled');
});

test('each option has packages of its own: API version, minify mode, typings', async () => {
  const dir = project({ 'app.ts': "let n = 0;\nfor (let i = 0; i < 3; i++) {\n  n += i;\n}\nprint('n=' + n);\n" });
  const entry = path.join(dir, 'app.ts');
  const base = await build(entry);
  const older = await build(entry, { apiVersion: '0.1.5' });
  assert.equal(older.r.cached, false);
  const h = readPackageHeader(older.bytes);
  assert.ok(typeof h === 'object' && h.apiVersion === '0.1.5', 'the package is for the API asked for');
  const dense = await build(entry, { minify: 'dense' });
  assert.equal(dense.r.cached, false);
  assert.ok(dense.r.sizes.minified < base.r.sizes.minified, 'the dense script is another script');
  // Typings of one's own: changing them rebuilds (and can turn a good app into a type error).
  // (Kept apart: a new declaration file beside the app could change how its imports resolve.)
  fs.mkdirSync(path.join(dir, '..', `typings${dirCount}`));
  const typings = path.join(dir, '..', `typings${dirCount}`, 'typings.d.ts');
  fs.writeFileSync(typings, 'declare function print(text: string): void;\n');
  const own = await build(entry, { typingsFile: typings });
  assert.equal(own.r.cached, false);
  fs.writeFileSync(typings, 'declare function print(text: number): void;\n');
  await assert.rejects(build(entry, { typingsFile: typings }), (err: unknown) => err instanceof BuildError && /not assignable/.test(err.message));
  // And the default build is still served from the cache, unchanged.
  const again = await build(entry);
  assert.equal(again.r.cached, true);
  assert.deepEqual(again.bytes, base.bytes);
});

test('type errors are reported with file:line:column whether or not the app was cached', async () => {
  const dir = project({ 'app.ts': "const n: number = 1;\nprint('n ' + n);\n" });
  const entry = path.join(dir, 'app.ts');
  await build(entry);
  assert.equal((await build(entry)).r.cached, true);
  fs.writeFileSync(entry, "const n: number = 1;\nconst s: string = n;\nprint(s);\n");
  const err = await build(entry).then(
    () => assert.fail('the build succeeded'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof BuildError);
  const d = err.diagnostics.find((x) => x.severity === 'error');
  assert.ok(d);
  assert.equal(d.file, entry);
  assert.equal(d.line, 2);
  assert.equal(d.column, 7);
  assert.match(d.message, /'number' is not assignable to type 'string'/);
  // Twice: errors are never cached away.
  await assert.rejects(build(entry), BuildError);
});

test('a damaged entry is ignored, rebuilt and replaced', async () => {
  const dir = project({ 'app.ts': "print('damage-me');\n" });
  const entry = path.join(dir, 'app.ts');
  const good = await build(entry);
  // The entry just written is the most recently used one.
  const [file] = entries().sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs);
  const text = fs.readFileSync(file, 'utf8');
  // A flipped character inside the stored package, and then a truncated file.
  const at = text.indexOf('"packageBase64":"') + 40;
  const flipped = text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1);
  for (const damaged of [flipped, text.slice(0, text.length / 2), 'not json at all']) {
    fs.writeFileSync(file, damaged);
    const r = await build(entry);
    assert.equal(r.r.cached, false, 'a damaged entry is not used');
    assert.deepEqual(r.bytes, good.bytes, 'the rebuilt package is the right one');
    assert.equal((await build(entry)).r.cached, true, 'the entry was replaced by a good one');
  }
});

test('a copy of the project elsewhere resolves its imports in its own place', async () => {
  const files = { 'src/app.ts': "import { place } from './place';\nprint(place);\n", 'src/place.ts': "export const place = 'original';\n" };
  const a = project(files);
  await build(path.join(a, 'src', 'app.ts'));
  // Same entry text, same name: the same key; the copy's own module differs, so no hit.
  const b = project({ ...files, 'src/place.ts': "export const place = 'the-copy';\n" });
  const r = await build(path.join(b, 'src', 'app.ts'));
  assert.equal(r.r.cached, false);
  assert.ok(carries(r.bytes, 'the-copy') && !carries(r.bytes, 'original'));
  // An identical copy (of the last one built) is a hit, and its report names its own files.
  const c = project({ ...files, 'src/place.ts': "export const place = 'the-copy';\n" });
  const same = await build(path.join(c, 'src', 'app.ts'));
  assert.equal(same.r.cached, true);
  assert.deepEqual(same.r.modules.filter((m) => !m.includes('tslib')), [path.join(c, 'src', 'app.ts'), path.join(c, 'src', 'place.ts')]);
});

test('on a hit the map beside the package names the sources from where the package is', async () => {
  const dir = project({ 'app.ts': "print('mapped');\n" });
  const entry = path.join(dir, 'app.ts');
  await build(entry, { outFile: path.join(dir, 'near', 'a.bapp') });
  const far = path.join(tmpRoot, 'far', 'away');
  const r = await build(entry, { outFile: path.join(far, 'a.bapp') });
  assert.equal(r.r.cached, true);
  const map = JSON.parse(fs.readFileSync(r.r.mapFile, 'utf8')) as { sources: string[] };
  assert.ok(map.sources.map((s) => path.resolve(far, s)).includes(entry), `map sources ${map.sources.join(', ')}`);
});

test('a cached package is signed with the key of each build', async () => {
  const dir = project({ 'app.ts': "print('signed');\n" });
  const entry = path.join(dir, 'app.ts');
  const plain = await build(entry);
  const keys = generateKeyPair();
  const keyFile = path.join(dir, 'k.pem');
  fs.writeFileSync(keyFile, keys.privatePem);
  const signed = await build(entry, { signKey: keyFile });
  assert.equal(signed.r.cached, true);
  assert.equal(signed.r.signedBy, keys.id);
  const block = readSignatureBlock(signed.bytes);
  assert.ok(block && typeof block === 'object', 'the package carries a signature block');
  assert.equal(signed.bytes.length, plain.bytes.length + 136);
  assert.equal((await build(entry)).bytes.length, plain.bytes.length, 'and the next unsigned build is unsigned');
});

test('--no-cache and BEACON_BUILD_CACHE=off build without the cache', async () => {
  const dir = project({ 'app.ts': "print('uncached');\n" });
  const entry = path.join(dir, 'app.ts');
  await build(entry);
  assert.equal((await build(entry, { cache: false })).r.cached, false);
  process.env.BEACON_BUILD_CACHE = 'off';
  try {
    assert.equal((await build(entry)).r.cached, false);
  } finally {
    delete process.env.BEACON_BUILD_CACHE;
  }
  assert.equal((await build(entry)).r.cached, true);
});

// The cache's own checks, with a stand-in package: another beacon-pack or another compiler must
// not find what this one built.

function fakeBuild(): BuiltPackage {
  return {
    report: { pack: { engine: 'Duktape', engineVersion: 20700, source: 1, bytecode: 1, package: 41 }, sourceBytes: 1, polyfillBytes: 0, polyfills: [], modules: [], usesCloud: false, warnings: [] },
    packageBytes: crypto.randomBytes(41),
    map: { version: 3, file: 'app.min.js', sources: [], mappings: '' },
    es5: '',
    script: '',
  };
}

test('a package built by another beacon-pack (engine or its configuration changed) is not served', async () => {
  const dir = project({ 'app.ts': "print('x');\n", 'pack-tool': 'engine build 1' });
  const entry = path.join(dir, 'app.ts');
  const tool = path.join(dir, 'pack-tool');
  const cache = new BuildCache(path.join(tmpRoot, 'unit-cache'), () => false);
  const parts = { entry, apiVersion: '0.2.6', engine: 'duktape', minify: 'lines', typingsFile: path.join(dir, 'none.d.ts') };
  const key = cache.key(parts);
  const stored = fakeBuild();
  cache.store(key, entry, dir, [entry], tool, stored);
  const hit = await cache.lookup(key, entry, dir, async () => tool);
  assert.ok(hit);
  assert.deepEqual(hit.packageBytes, stored.packageBytes);
  fs.writeFileSync(tool, 'engine build 2');
  assert.equal(await cache.lookup(key, entry, dir, async () => tool), undefined);
});

test('another compiler (a new version of the tools, TypeScript, rollup or terser) has other keys', async () => {
  const dir = project({ 'app.ts': "print('y');\n", 'pack-tool': 'engine' });
  const entry = path.join(dir, 'app.ts');
  const tool = path.join(dir, 'pack-tool');
  const cache = new BuildCache(path.join(tmpRoot, 'unit-cache'), () => false);
  const parts = { entry, apiVersion: '0.2.6', engine: 'duktape', minify: 'lines', typingsFile: path.join(dir, 'none.d.ts') };
  const oldKey = cache.key(parts, 'compiler fingerprint 1');
  cache.store(oldKey, entry, dir, [entry], tool, fakeBuild());
  assert.ok(await cache.lookup(oldKey, entry, dir, async () => tool));
  const newKey = cache.key(parts, 'compiler fingerprint 2');
  assert.notEqual(newKey, oldKey);
  assert.equal(await cache.lookup(newKey, entry, dir, async () => tool), undefined);
});
