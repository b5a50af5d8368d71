// `beacon test [files or directories...] [--device udp:...|serial:...|bsim|zephyr-qemu] [--air model|radio] [--air-dump DIR] [--engine E] [--api V]`
//
// Runs test files written with beacon-tools/testing on node's test runner. TypeScript files are
// compiled with the project's TypeScript (transpiled to CommonJS, one file at a time: the runner
// reports type errors as the author's editor does, not as a gate) into a scratch directory where
// `beacon-tools/testing` resolves to these tools; JavaScript files run where they are. The options
// reach the library through the environment: BEACON_TEST_DEVICE, BEACON_TEST_AIR,
// BEACON_TEST_AIR_DUMP, BEACON_TEST_ENGINE, BEACON_TEST_API.
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { toolsRoot } from '../codegen/versions';
import { ParsedArgs, stringOption, UsageError } from './args';
import { apiOption, engineOption } from './common';
import { CliIo } from './io';

const TEST_FILE = /\.test\.(ts|mts|js|mjs|cjs)$/;

/** Test files named, or found (recursively) in the directories named. */
export function collectTestFiles(inputs: string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(dir, e.name);
      if (e.isDirectory() && e.name !== 'node_modules' && !e.name.startsWith('.')) walk(p);
      else if (e.isFile() && TEST_FILE.test(e.name) && !e.name.endsWith('.d.ts')) out.push(p);
    }
  };
  for (const input of inputs) {
    const abs = path.resolve(input);
    let st: fs.Stats;
    try {
      st = fs.statSync(abs);
    } catch {
      throw new UsageError(`no such file or directory: ${input}`, false);
    }
    if (st.isDirectory()) walk(abs);
    else out.push(abs);
  }
  return out;
}

/** Transpile the TypeScript among files (and the .ts modules beside them) into dir; returns
 * what node should run. */
async function prepare(files: string[], dir: string): Promise<string[]> {
  const ts = await import('typescript');
  const sources = new Set<string>();
  for (const f of files) {
    if (!/\.m?ts$/.test(f)) continue;
    for (const sib of fs.readdirSync(path.dirname(f))) {
      if (/\.m?ts$/.test(sib) && !sib.endsWith('.d.ts')) sources.add(path.join(path.dirname(f), sib));
    }
  }
  const base = files.length ? commonDir(files) : process.cwd();
  const outOf = (f: string): string => path.join(dir, 'src', path.relative(base, f)).replace(/\.m?ts$/, '.js');
  for (const src of sources) {
    const r = ts.transpileModule(fs.readFileSync(src, 'utf8'), {
      fileName: src,
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true, sourceMap: false, inlineSourceMap: true, inlineSources: true },
      reportDiagnostics: true,
    });
    for (const d of r.diagnostics ?? []) {
      throw new UsageError(`${src}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`, false);
    }
    fs.mkdirSync(path.dirname(outOf(src)), { recursive: true });
    // __dirname and __filename name the source, so a test finds the apps beside it.
    const here = `__dirname = ${JSON.stringify(path.dirname(src))}; __filename = ${JSON.stringify(src)};\n`;
    const text = r.outputText.startsWith('"use strict";\n') ? '"use strict";\n' + here + r.outputText.slice(14) : here + r.outputText;
    fs.writeFileSync(outOf(src), text);
  }
  return files.map((f) => (/\.m?ts$/.test(f) ? outOf(f) : f));
}

function commonDir(files: string[]): string {
  let dir = path.dirname(files[0]);
  while (!files.every((f) => f.startsWith(dir + path.sep))) dir = path.dirname(dir);
  return dir;
}

export async function testCommand(args: ParsedArgs, io: CliIo): Promise<number> {
  const files = collectTestFiles(args.positionals.length ? args.positionals : ['.']);
  if (files.length === 0) throw new UsageError('no test files (*.test.ts, *.test.js) found', false);
  const device = stringOption(args, 'device');
  // bsim and zephyr-qemu: the firmware built by Zephyr on nrf52_bsim or mps2/an521 runs each
  // world (testing/world.ts); anything else is a rig's SMP address.
  if (device !== undefined && device !== 'bsim' && device !== 'zephyr-qemu') {
    const { parseDevice } = await import('../smp');
    try {
      parseDevice(device);
    } catch (err) {
      if (err instanceof RangeError) throw new UsageError(`--device ${err.message}`);
      throw err;
    }
  }
  // --air radio (bsim): every world on BabbleSim's air alone, an lte-beacon as its two chips.
  const air = stringOption(args, 'air');
  if (air !== undefined && air !== 'model' && air !== 'radio') throw new UsageError(`--air: '${air}' is not model or radio`);
  if (air === 'radio' && device !== 'bsim') throw new UsageError('--air radio: only the firmwares on BabbleSim share a radio air (--device bsim)');
  // --air-dump (bsim): each world run keeps BabbleSim's record of the air in a directory of its own.
  const airDump = stringOption(args, 'air-dump');
  if (airDump !== undefined && device !== 'bsim') throw new UsageError('--air-dump: only BabbleSim records the air (--device bsim, as --target bsim for beacon run)');
  const engine = engineOption(args);
  const api = stringOption(args, 'api') === undefined ? undefined : apiOption(args);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-test-run-'));
  try {
    // `beacon-tools/testing` from the scratch directory and from the JavaScript tests alike.
    fs.mkdirSync(path.join(dir, 'node_modules'));
    fs.symlinkSync(toolsRoot(), path.join(dir, 'node_modules', 'beacon-tools'), 'dir');
    const run = await prepare(files, dir);
    const env: NodeJS.ProcessEnv = { ...process.env };
    // Run from inside a node test (this tool's own tests), the runner would otherwise report to
    // the outer one instead of printing its results.
    delete env.NODE_TEST_CONTEXT;
    env.NODE_PATH = [path.join(dir, 'node_modules'), process.env.NODE_PATH].filter(Boolean).join(path.delimiter);
    if (device !== undefined) env.BEACON_TEST_DEVICE = device;
    if (air !== undefined) env.BEACON_TEST_AIR = air;
    if (airDump !== undefined) env.BEACON_TEST_AIR_DUMP = path.resolve(airDump);
    if (engine !== undefined) env.BEACON_TEST_ENGINE = engine;
    if (api !== undefined) env.BEACON_TEST_API = api;
    io.err(`beacon test: ${files.length} file${files.length === 1 ? '' : 's'} on ${device ?? 'the simulator'}${air === 'radio' ? ' (radio air)' : ''} (${engine ?? env.BEACON_TEST_ENGINE ?? 'duktape'})\n`);
    return await new Promise<number>((resolve, reject) => {
      // One file at a time: tests that start devices share the CPU and the host tools' build.
      const child = spawn(process.execPath, ['--test', '--test-concurrency=1', ...run], { stdio: ['ignore', 'pipe', 'pipe'], env });
      child.stdout.on('data', (b: Buffer) => io.out(b.toString()));
      child.stderr.on('data', (b: Buffer) => io.err(b.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve(code ?? 1));
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
