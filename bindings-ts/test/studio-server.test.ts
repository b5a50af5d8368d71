// The parts of `beacon studio` that run in node: builds and scenarios through the server are the
// CLI's, the editor's type errors are the build's, and the WebAssembly world gives beacon-sim's
// output and trace on every engine built (studio.test.ts drives the page itself in chromium).
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { repoRoot } from '../src/compiler/hostTools';
import { buildSource, ensureWasm, lowerScenarioText } from '../src/studio/server';
import { EditorService } from '../src/studio/languageService';
import { Pacer, SimFactory, WasmWorld } from '../src/studio/world';
import { runChild } from './childProcess';

const ROOT = repoRoot();
const BEACON = path.join(ROOT, 'bindings-ts', 'bin', 'beacon.js');
const HAS_EMCC = spawnSync('sh', ['-c', 'command -v emcc'], { encoding: 'utf8' }).status === 0;

let dir: string;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-server-'));
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

function cli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BEACON, ...args], { cwd: dir, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('Build in the studio is beacon build', () => {
  test('the same package bytes and the same size report', async () => {
    fs.copyFileSync(path.join(ROOT, 'examples', 'button-led.ts'), path.join(dir, 'button-led.ts'));
    const r = cli(['build', 'button-led.ts', '--api', '0.2.6']);
    assert.equal(r.status, 0, r.stderr);
    const built = await buildSource(fs.readFileSync(path.join(dir, 'button-led.ts'), 'utf8'), 'button-led.ts', '0.2.6', 'duktape');
    assert.equal(built.ok, true);
    assert.deepEqual(Buffer.from(built.package!, 'base64'), fs.readFileSync(path.join(dir, 'button-led.bapp')));
    assert.equal(built.report, r.stderr);
  });

  test('errors at the lines the CLI gives', async () => {
    const source = "print('a');\nconst n: number = 'b';\nio.nothing();\n";
    fs.writeFileSync(path.join(dir, 'bad.ts'), source);
    const r = cli(['build', 'bad.ts']);
    assert.equal(r.status, 1);
    const built = await buildSource(source, 'bad.ts', '0.2.6', 'duktape');
    assert.equal(built.ok, false);
    assert.deepEqual(
      built.diagnostics.map((d) => d.line),
      [2, 3],
    );
    for (const d of built.diagnostics) assert.ok(r.stderr.includes(d.text), `${d.text}\n---\n${r.stderr}`);
  });
});

describe('scenarios in the studio are checked as beacon run checks them', () => {
  test('a bad scenario gets the CLI message', async () => {
    const text = JSON.stringify({ devices: [{ profile: 'zz-beacon' }] });
    fs.writeFileSync(path.join(dir, 'bad.json'), text);
    fs.writeFileSync(path.join(dir, 'hello.ts'), "print('hi');\n");
    const r = cli(['run', 'hello.ts', '--world', 'bad.json']);
    assert.equal(r.status, 1);
    const got = await lowerScenarioText(text, 'bad.json');
    assert.ok('error' in got);
    // The CLI names the file by the path it resolved; the page by the name it was given.
    assert.equal(`${got.error}\n`, r.stderr.replace(path.join(dir, 'bad.json'), 'bad.json'));
  });

  test('a good one is lowered with its devices and duration', async () => {
    const got = await lowerScenarioText(JSON.stringify({ duration: '1 min', devices: [{ name: 'a' }, { name: 'b', profile: 'ai-beacon' }] }), 'two.json');
    assert.ok(!('error' in got));
    assert.equal(got.durationMs, 60_000);
    assert.deepEqual(got.devices.map((d) => d.name), ['a', 'b']);
    assert.match(got.script, /^beacon-world 1\n/);
  });
});

describe("the editor's language service", () => {
  const editor = new EditorService();

  test('every example type-checks clean, as it builds', () => {
    for (const f of fs.readdirSync(path.join(ROOT, 'examples')).filter((x) => x.endsWith('.ts'))) {
      assert.deepEqual(editor.diagnostics(fs.readFileSync(path.join(ROOT, 'examples', f), 'utf8'), '0.2.6'), [], f);
    }
  });

  test('a type error at its line and range', () => {
    const source = "let a = 1;\nlet b: string = a;\n";
    const [d, ...rest] = editor.diagnostics(source, '0.2.6');
    assert.equal(rest.length, 0);
    assert.equal(d.line, 2);
    assert.equal(source.slice(d.from, d.to), 'b');
    assert.match(d.message, /Type 'number' is not assignable to type 'string'/);
  });

  test("per version: a function of 0.2.6 is an error in 0.0.9's typings", () => {
    const source = 'sensors.battery.getPerc();\n';
    assert.deepEqual(editor.diagnostics(source, '0.2.6'), []);
    const old = editor.diagnostics("io.led(true);\nconst m = new Map<string, number>();\n", '0.0.9');
    assert.ok(old.some((d) => d.line === 2 && /Map/.test(d.message)), JSON.stringify(old));
  });

  test('completions after io. are the members of io', () => {
    const source = 'io.';
    const labels = editor.completions(source, '0.2.6', source.length).map((c) => c.label);
    for (const m of ['press', 'led', 'setLedColor', 'Color']) assert.ok(labels.includes(m), labels.join(' '));
    assert.ok(!labels.includes('setTimeout'));
  });
});

describe('the WebAssembly world gives beacon-sim output and trace', { skip: HAS_EMCC ? false : 'emscripten is not installed (bash scripts/setup.sh installs it)' }, () => {
  const scenario = {
    utc: '2026-03-01T08:00:00Z',
    duration: '20s',
    devices: [{ name: 'one', profile: 'ai-beacon' }, { name: 'two' }],
    events: [
      { at: '1s', device: 'one', press: { hold: '100ms' } },
      { at: '2s', device: 'two', press: { hold: '4s' } },
      { at: '3s', device: 'one', power: { external: true } },
      { at: '4s', device: 'one', temperature: 30 },
      { at: '7s', device: 'two', press: { hold: '6s' } },
      { at: '15s', device: 'one', press: { button: 'side', hold: '100ms' } },
    ],
  };

  for (const engine of ['duktape', 'jerryscript'] as const) {
    test(engine, async (t) => {
      const wasm = await ensureWasm();
      const js = path.join(wasm, `beacon-sim-${engine}.js`);
      if (!fs.existsSync(js)) {
        t.skip(`no ${engine} module (JerryScript is built when JERRYSCRIPT_DIR is set)`);
        return;
      }
      fs.copyFileSync(path.join(ROOT, 'examples', 'button-led.ts'), path.join(dir, 'button-led.ts'));
      fs.writeFileSync(path.join(dir, 'w.json'), JSON.stringify(scenario));
      const run = await runChild(process.execPath, [BEACON, 'run', 'button-led.ts', '--engine', engine, '--world', 'w.json', '--trace', 't.jsonl'], 300_000, dir);
      assert.equal(run.status, 0, run.stderr);
      const stdout = run.stdout;
      const built = await buildSource(fs.readFileSync(path.join(dir, 'button-led.ts'), 'utf8'), 'button-led.ts', '0.2.6', engine);
      const lowered = await lowerScenarioText(JSON.stringify(scenario), 'w.json');
      assert.ok(built.ok && !('error' in lowered));
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const factory = require(js) as SimFactory;
      const world = await WasmWorld.create(factory, fs.readFileSync(js.replace(/\.js$/, '.wasm')));
      let out = '';
      let trace = '';
      world.listen({ output: (l) => (out += l.stream === 'stdout' ? l.text : ''), trace: (j) => (trace += j) });
      const devices = world.open(lowered.script, 1, Date.now());
      for (const d of devices) world.setPackage(d.index, Buffer.from(built.package!, 'base64'));
      assert.deepEqual(world.start(), []);
      // Paced in slices, as the page runs it, not in one call.
      let clock = 0;
      const pacer = new Pacer(world, () => clock);
      pacer.until = lowered.durationMs!;
      pacer.setSpeed(100);
      while (pacer.ended === undefined) {
        clock += 16;
        pacer.tick();
      }
      assert.equal(out, stdout);
      assert.equal(trace, fs.readFileSync(path.join(dir, 't.jsonl'), 'utf8'));
    });
  }

  test('a corrupt package: refused with the reason beacon-sim gives', async () => {
    const wasm = await ensureWasm();
    const js = path.join(wasm, 'beacon-sim-duktape.js');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const world = await WasmWorld.create(require(js) as SimFactory, fs.readFileSync(js.replace(/\.js$/, '.wasm')));
    const bad = Buffer.from('BAPP\x01\x00\x00\x00 and then nothing that makes a package');
    fs.writeFileSync(path.join(dir, 'bad.bapp'), bad);
    const r = cli(['run', 'bad.bapp']);
    const why = world.check(bad);
    assert.ok(why);
    assert.ok(r.stderr.includes(`bad.bapp: ${why}\n`), `${why}\n---\n${r.stderr}`);
  });
});
