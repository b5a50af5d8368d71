// The native host tools (beacon-pack: ES5 to a bytecode package; beacon-sim: the simulator) are
// built from this repository with CMake. Every use goes through ensureHostTools so they are
// never stale: configure once, then `cmake --build` for the needed targets, which is a no-op when
// they are current. The stamp of hostToolsStamp.ts answers "current" without running cmake
// when none of the files make would look at has changed since the last build.
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { toolsRoot } from '../codegen/versions';
import { nowNs, removeStamp, stampSaysCurrent, writeStamp } from './hostToolsStamp';
import { jerryscriptDir, workspaceMissing } from '../firmware/workspace';

export const ENGINES = ['duktape', 'jerryscript'] as const;
export type Engine = (typeof ENGINES)[number];
export const DEFAULT_ENGINE: Engine = 'duktape';

export function isEngine(v: string): v is Engine {
  return (ENGINES as readonly string[]).includes(v);
}

export type HostTool = 'beacon-pack' | 'beacon-sim' | 'beacon-smp-testd';

/** The host build failed or cannot be done; `output` is the build's own output, if any. */
export class HostToolsError extends Error {
  readonly output: string;
  constructor(message: string, output = '') {
    super(message);
    this.name = 'HostToolsError';
    this.output = output;
  }
}

/** Root of the source tree the tools are built from (the directory of the top CMakeLists.txt). */
export function repoRoot(): string {
  return path.dirname(toolsRoot());
}

/** BEACON_HOST_BUILD overrides the default build/host of the repository. */
export function hostBuildDir(): string {
  const env = process.env.BEACON_HOST_BUILD;
  return env ? path.resolve(env) : path.join(repoRoot(), 'build', 'host');
}

/** CMake target (and file) name of a tool: Duktape's carry no suffix. */
export function toolTarget(tool: HostTool, engine: Engine): string {
  return engine === 'duktape' ? tool : `${tool}-${engine}`;
}

export function toolPath(tool: HostTool, engine: Engine, buildDir: string = hostBuildDir()): string {
  return path.join(buildDir, toolTarget(tool, engine));
}

interface CommandResult {
  code: number;
  output: string;
}

export function runCaptured(cmd: string, args: string[]): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => chunks.push(b));
    child.stderr.on('data', (b: Buffer) => chunks.push(b));
    child.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') {
        reject(new HostToolsError(`'${cmd}' was not found on PATH; it is needed to build the host tools`));
      } else {
        reject(err);
      }
    });
    child.on('close', (code, signal) => {
      const output = Buffer.concat(chunks).toString('utf8');
      resolve({ code: code ?? (signal ? 128 : 1), output });
    });
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Two beacon commands (or test files) may build at once; make does not like sharing a tree, so
 * builds of one directory take turns. A lock left by a process that died is taken over.
 */
export async function withBuildLock<T>(buildDir: string, fn: () => Promise<T>): Promise<T> {
  fs.mkdirSync(buildDir, { recursive: true });
  const lock = path.join(buildDir, '.beacon-build.lock');
  for (;;) {
    try {
      fs.writeFileSync(lock, String(process.pid), { flag: 'wx' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      let holder = NaN;
      try {
        holder = Number(fs.readFileSync(lock, 'utf8'));
      } catch {
        continue; // released between our attempts
      }
      if (Number.isInteger(holder) && holder > 0 && !processAlive(holder)) {
        fs.rmSync(lock, { force: true });
        continue;
      }
      await sleep(250);
    }
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(lock, { force: true });
  }
}

function cacheValue(cacheFile: string, key: string): string | undefined {
  const text = fs.readFileSync(cacheFile, 'utf8');
  const m = new RegExp(`^${key}:[A-Z]+=(.*)$`, 'm').exec(text);
  return m ? m[1] : undefined;
}

export interface EnsureOptions {
  /** Progress lines (only for slow steps such as the first configure). */
  onNote?: (line: string) => void;
}

// Targets built by this process: one build per command is enough.
const ensured = new Set<string>();

/** Check the tools again at the next ensureHostTools (a long-lived process, between requests). */
export function forgetEnsuredHostTools(): void {
  ensured.clear();
}

/**
 * Configure the host build if needed, build the given tools for `engine`, and return their
 * paths in the order asked for.
 */
export async function ensureHostTools(
  tools: readonly HostTool[],
  engine: Engine,
  opts: EnsureOptions = {},
): Promise<string[]> {
  const root = repoRoot();
  const buildDir = hostBuildDir();
  const targets = tools.map((t) => toolTarget(t, engine));
  const paths = tools.map((t) => toolPath(t, engine, buildDir));
  if (targets.every((t) => ensured.has(`${buildDir}\0${t}`))) return paths;
  if (targets.every((t) => stampSaysCurrent(buildDir, t))) {
    for (const t of targets) ensured.add(`${buildDir}\0${t}`);
    return paths;
  }

  if (!fs.existsSync(path.join(root, 'CMakeLists.txt'))) {
    throw new HostToolsError(`cannot build the host tools: no CMakeLists.txt in ${root}`);
  }

  await withBuildLock(buildDir, async () => {
    const cacheFile = path.join(buildDir, 'CMakeCache.txt');
    const configureArgs = ['-S', root, '-B', buildDir, '-DCMAKE_BUILD_TYPE=Release'];
    // A configure that failed leaves a cache but no build files behind: configure again then.
    const generated = ['Makefile', 'build.ninja'].some((f) => fs.existsSync(path.join(buildDir, f)));
    let configure = !fs.existsSync(cacheFile) || !generated;
    if (engine === 'jerryscript') {
      // The JerryScript tools exist only in a build configured with a JerryScript tree.
      const configured = configure ? '' : cacheValue(cacheFile, 'JERRYSCRIPT_DIR') ?? '';
      if (!configured) {
        const fromEnv = jerryscriptDir();
        if (!fromEnv) throw new HostToolsError(`the JerryScript tools cannot be built: ${workspaceMissing('jerryscript')}`);
        configureArgs.push(`-DJERRYSCRIPT_DIR=${fromEnv}`);
        configure = true;
      }
    }
    if (configure) {
      opts.onNote?.(`configuring the host tools in ${buildDir}`);
      const r = await runCaptured('cmake', configureArgs);
      if (r.code !== 0) {
        throw new HostToolsError(`configuring the host tools failed (cmake ${configureArgs.join(' ')})`, r.output);
      }
    }
    const buildArgs = ['--build', buildDir, '-j2', '--target', ...targets];
    const started = nowNs();
    for (const t of targets) removeStamp(buildDir, t);
    const r = await runCaptured('cmake', buildArgs);
    if (r.code !== 0) {
      throw new HostToolsError(`building ${targets.join(', ')} failed (cmake ${buildArgs.join(' ')})`, r.output);
    }
    for (const t of targets) writeStamp(buildDir, t, started);
  });

  for (const p of paths) {
    if (!fs.existsSync(p)) {
      throw new HostToolsError(`the host build finished but ${p} is missing`);
    }
  }
  for (const t of targets) ensured.add(`${buildDir}\0${t}`);
  return paths;
}
