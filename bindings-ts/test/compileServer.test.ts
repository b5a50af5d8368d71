// The compile server (src/compiler/compileServer.ts): a build it does is the build this process
// would do, byte for byte; its errors come back with their positions; a dead or missing server
// only means compiling here; and it ends when idle.
import * as assert from 'assert/strict';
import { ChildProcess, spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { after, test } from 'node:test';
import { BuildError, compileApp } from '../src/compiler';
import { runServer, serverSocketPath } from '../src/compiler/compileServer';

const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-server-test-'));
process.on('exit', () => fs.rmSync(tmpRoot, { recursive: true, force: true }));
// A cache directory (and so a server socket) of this file's own; nothing of a user's.
process.env.BEACON_CACHE_DIR = path.join(tmpRoot, 'c');
process.env.BEACON_COMPILE_SERVER = 'on';

const MAIN = path.join(__dirname, '..', 'src', 'compiler', 'compileServerMain.js');
let server: ChildProcess | undefined;
after(() => {
  server?.kill('SIGTERM');
});

function write(name: string, text: string): string {
  const file = path.join(tmpRoot, name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}

async function waitFor(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 600 && !cond(); i++) await new Promise((r) => setTimeout(r, 100));
  assert.ok(cond(), `timed out waiting for ${what}`);
}

test('a build on the server is the build of this process, byte for byte', async () => {
  const socket = serverSocketPath();
  assert.ok(socket);
  server = spawn(process.execPath, [MAIN], { stdio: 'ignore', env: process.env });
  await waitFor(() => fs.existsSync(socket), 'the server socket');
  const app = write('one/app.ts', "import { twice } from './lib';\nclass Box { constructor(readonly v: number) {} }\nprint('v=' + twice(new Box(21).v));\n");
  write('one/lib.ts', 'export const twice = (n: number): number => n * 2;\n');
  const remote = await compileApp({ entry: app, apiVersion: '0.2.6', outFile: path.join(tmpRoot, 'one', 'remote.bapp'), cache: false });
  assert.equal(remote.compiledOnServer, true);
  const local = await compileApp({ entry: app, apiVersion: '0.2.6', outFile: path.join(tmpRoot, 'one', 'local.bapp'), cache: false, server: false });
  assert.equal(local.compiledOnServer, false);
  assert.deepEqual(fs.readFileSync(remote.outFile), fs.readFileSync(local.outFile));
  assert.deepEqual(remote.sizes, local.sizes);
  assert.deepEqual(remote.modules, local.modules);
  // Maps name their sources relative to where each package went (the same directory here).
  assert.equal(fs.readFileSync(remote.mapFile, 'utf8'), fs.readFileSync(local.mapFile, 'utf8'));
});

test("the server's type errors carry file:line:column", async () => {
  const app = write('two/app.ts', "const n: number = 1;\nconst s: string = n;\nprint(s);\n");
  const err = await compileApp({ entry: app, apiVersion: '0.2.6', outFile: path.join(tmpRoot, 'two', 'app.bapp'), cache: false }).then(
    () => assert.fail('the build succeeded'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof BuildError, String(err));
  const d = err.diagnostics.find((x) => x.severity === 'error');
  assert.ok(d);
  assert.deepEqual([d.file, d.line, d.column], [app, 2, 7]);
  assert.ok(!fs.existsSync(path.join(tmpRoot, 'two', 'app.bapp')), 'no package written');
});

test('with the server gone (its socket left behind), builds happen here', async () => {
  const socket = serverSocketPath()!;
  server?.kill('SIGKILL');
  await new Promise((r) => server?.once('exit', r));
  server = undefined;
  // A server killed outright leaves its socket; nothing answers there.
  if (!fs.existsSync(socket)) fs.writeFileSync(socket, '');
  const app = write('three/app.ts', "print('here');\n");
  const r = await compileApp({ entry: app, apiVersion: '0.2.6', outFile: path.join(tmpRoot, 'three', 'app.bapp'), cache: false, server: false });
  // (Not forced on: a build here starts no new server from a test, which has no terminal.)
  delete process.env.BEACON_COMPILE_SERVER;
  const viaFallback = await compileApp({ entry: app, apiVersion: '0.2.6', outFile: path.join(tmpRoot, 'three', 'again.bapp'), cache: false });
  assert.equal(viaFallback.compiledOnServer, false);
  assert.deepEqual(fs.readFileSync(viaFallback.outFile), fs.readFileSync(r.outFile));
});

test('a server ends when idle, and a second one for the same socket ends at once', async () => {
  const socket = path.join(tmpRoot, 's.sock');
  const first = runServer(socket, 2000);
  await waitFor(() => fs.existsSync(socket), 'the socket');
  const second = runServer(socket, 60_000);
  await second; // another server answers there: it did not take over
  await first;
  assert.ok(!fs.existsSync(socket), 'the socket is removed');
});
