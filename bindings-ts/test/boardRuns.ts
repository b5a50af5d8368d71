// What the tests that run tests/apps on a board (the bare-metal QEMU image, the Zephyr firmware on
// nrf52_bsim and mps2/an521) share: each app's run specification from its header lines, the CLI
// as a child process, and the stderr lines that describe the device rather than the host's run.
import { execFile } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { toolsRoot } from '../src/codegen/versions';

export const repo = path.dirname(toolsRoot());
export const appsDir = path.join(repo, 'tests', 'apps');
const cli = path.join(toolsRoot(), 'bin', 'beacon.js');

export interface AppSpec {
  file: string;
  args: string[];
  buildArgs: string[];
  devices: number;
  hasTrace: boolean;
}

export function readSpec(file: string): AppSpec {
  const spec: AppSpec = { file, args: [], buildArgs: [], devices: 1, hasTrace: false };
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const m = /^\/\/ (run|exit|stderr|world): (.*)$/.exec(line);
    if (!m) {
      if (line.startsWith('//')) continue;
      break;
    }
    if (m[1] === 'run') {
      const words = m[2].trim().split(/\s+/);
      spec.args.push(...words);
      const api = words.indexOf('--api');
      if (api >= 0) spec.buildArgs.push('--api', words[api + 1]);
    } else if (m[1] === 'world') {
      const world = path.join(path.dirname(file), m[2].trim());
      spec.args.push('--world', world);
      spec.devices = (JSON.parse(fs.readFileSync(world, 'utf8')).devices ?? [{}]).length;
    }
  }
  spec.hasTrace = fs.existsSync(file.replace(/\.(ts|js)$/, '.trace'));
  return spec;
}

/** Every app of tests/apps, in name order. */
export function testApps(): AppSpec[] {
  return fs
    .readdirSync(appsDir)
    .filter((f) => /\.(ts|js)$/.test(f))
    .sort()
    .map((f) => readSpec(path.join(appsDir, f)));
}

export interface Run {
  status: number;
  stdout: string;
  stderr: string;
  trace?: string;
}

export function beacon(args: string[], timeout = 300_000): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [cli, ...args], { encoding: 'utf8', timeout, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      const status = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ status, stdout, stderr });
    });
  });
}

/** The simulator's stderr lines that describe the host run itself, not the device. */
export function deviceLines(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('[beacon figure]') && !l.startsWith('[beacon info] run ended') && !l.startsWith('beacon: '));
}

/**
 * An app for the app store's tests: it counts its boots in record 1, keeps the note the first app
 * left in record 2, and prints both: what it prints after a reboot shows which app runs and that
 * the storage records survived.
 */
export function storeApp(name: string): string {
  return `
var boots = storage.read(1);
var n = boots ? boots.n : 0;
storage.save(1, { n: n + 1 });
var note = storage.read(2);
if (!note) storage.save(2, { text: 'left by ${name}' });
print('${name} boot ' + (n + 1) + ', note: ' + (note ? note.text : 'none'));
`;
}
