// The cloud side of cloud code: one node process per handler (codeRunner.ts), started when the
// first event comes and started again after it dies. Each call has a deadline; a call past it,
// a process over its memory, or one that exits, is ended with SIGKILL and every call it held
// fails with the reason, so the dispatcher retries them like a webhook's failed POSTs. The
// process is a separate one (not a worker thread of the cloud) so that a handler breaking out
// of its vm context reaches neither the store's connection nor the token nor the environment.
import { ChildProcess, spawn, spawnSync } from 'child_process';
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vm from 'vm';

export interface SandboxOptions {
  /** Deadline of one call (default 30 s). */
  timeoutMs?: number;
  /** The handler's V8 heap, MB (default 128); the whole process may use twice that plus 64 MB. */
  memoryMb?: number;
  /** Output kept per call, bytes (default 4 KiB). */
  outputLimit?: number;
  /** `beacon run`: Date and Math.random follow the event (see codeRunner.ts). */
  simulated?: boolean;
}

export const SANDBOX_DEFAULTS = { timeoutMs: 30_000, memoryMb: 128, outputLimit: 4096 };
export const MAX_CODE_BYTES = 256 * 1024;

export type CallOutcome = { ok: true; output: string } | { ok: false; reason: string; output: string };

interface Pending {
  resolve: (o: CallOutcome) => void;
  timer: NodeJS.Timeout;
  /** What the call printed so far: kept when its process is ended under it. */
  lines: string[];
}

/** How often the process's resident memory is read while calls are in flight (Linux). */
const RSS_POLL_MS = 200;
const STDERR_KEEP = 2000;
/**
 * The handler's process runs below the cloud: on Linux in the SCHED_IDLE class (started through
 * util-linux's chrt, which needs no privilege for it), and at the lowest priority anyway, so a
 * handler that loops takes only the CPU that ingest leaves, for as long as its deadline.
 */
const NICENESS = 19;
let idlePrefix: string[] | undefined;

/** `chrt --idle 0`, if it is there and works here (a sandboxed container may refuse it): tried once. */
function idleClass(): string[] {
  if (idlePrefix !== undefined) return idlePrefix;
  const chrt = process.platform === 'linux' ? ['/usr/bin/chrt', '/bin/chrt'].find((p) => fs.existsSync(p)) : undefined;
  idlePrefix = chrt !== undefined && spawnSync(chrt, ['--idle', '0', process.execPath, '-e', '0'], { stdio: 'ignore', env: {} }).status === 0 ? [chrt, '--idle', '0'] : [];
  return idlePrefix;
}

/** node's permission model: --permission from node 22 on, --experimental-permission before. */
function permissionFlag(): string {
  return process.allowedNodeEnvironmentFlags.has('--permission') ? '--permission' : '--experimental-permission';
}

/**
 * Whether a handler's source compiles, without running it: the API refuses one that does not
 * (RangeError naming `code`), so that a typo is an answer, not a dead-letter list.
 */
export function checkCode(source: unknown, what = 'code'): string {
  if (typeof source !== 'string' || source.trim() === '') throw new RangeError(`${what}: the handler's JavaScript source (module.exports = async function (event) {...})`);
  if (Buffer.byteLength(source) > MAX_CODE_BYTES) throw new RangeError(`${what}: ${Buffer.byteLength(source)} bytes, over the ${MAX_CODE_BYTES}-byte limit`);
  try {
    new vm.Script(`(function (module, exports, require) {${source}\n})`, { filename: 'handler.js' });
  } catch (err) {
    throw new RangeError(`${what}: ${(err as Error).name}: ${(err as Error).message}`);
  }
  return source;
}

/** A seed for the simulated Math.random of one event, from its key. */
export function eventSeed(key: string): number {
  return crypto.createHash('sha256').update(key).digest().readInt32LE(0);
}

export class CodeSandbox {
  private readonly opts: typeof SANDBOX_DEFAULTS & { simulated: boolean };
  private child?: ChildProcess;
  private pending = new Map<number, Pending>();
  private nextId = 1;
  private stderr = '';
  private rssTimer?: NodeJS.Timeout;
  private closed = false;
  /** Processes started so far (the first included): a restart shows as 2 and more. */
  starts = 0;

  constructor(
    readonly source: string,
    private readonly filename: string,
    options: SandboxOptions = {},
  ) {
    this.opts = { ...SANDBOX_DEFAULTS, simulated: options.simulated === true };
    for (const k of ['timeoutMs', 'memoryMb', 'outputLimit'] as const) {
      const v = options[k];
      if (v === undefined) continue;
      if (!Number.isSafeInteger(v) || v < 1) throw new RangeError(`cloud code: ${k} must be a positive integer, not ${v}`);
      this.opts[k] = v;
    }
  }

  private start(): ChildProcess {
    const runner = path.join(__dirname, 'codeRunner.js');
    const argv = [
      ...idleClass(),
      process.execPath,
      '--no-warnings',
      permissionFlag(),
      `--allow-fs-read=${fs.realpathSync(runner)}`,
      `--max-old-space-size=${this.opts.memoryMb}`,
      runner,
    ];
    const child = spawn(
      argv[0],
      argv.slice(1),
      // An empty environment: nothing of the cloud's (token, database URL) reaches the handler.
      { env: {}, stdio: ['ignore', 'ignore', 'pipe', 'ipc'], serialization: 'json' },
    );
    this.starts++;
    this.stderr = '';
    if (child.pid !== undefined) {
      try {
        os.setPriority(child.pid, Math.min(19, os.getPriority() + NICENESS));
      } catch {
        // Not allowed here (a container without CAP_SYS_NICE may refuse): the deadline still holds.
      }
    }
    child.stderr?.on('data', (c: Buffer) => {
      this.stderr = (this.stderr + c.toString('utf8')).slice(-STDERR_KEEP);
    });
    child.on('message', (m: { id?: number; ok?: boolean; output?: string; error?: string; line?: number; text?: string }) => {
      if (typeof m.line === 'number') {
        this.pending.get(m.line)?.lines.push(String(m.text));
        return;
      }
      if (typeof m.id !== 'number') return;
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      clearTimeout(p.timer);
      p.resolve(m.ok ? { ok: true, output: m.output ?? '' } : { ok: false, reason: m.error ?? 'failed', output: m.output ?? '' });
      this.watchMemory();
    });
    child.on('exit', (code, signal) => {
      if (this.child !== child) return;
      this.child = undefined;
      const memory = /heap out of memory|Reached heap limit|allocation failed/i.test(this.stderr);
      const tail = this.stderr.trim().split('\n').slice(-1)[0]?.slice(0, 300) ?? '';
      this.failAll(memory ? this.memoryReason(`its heap of ${this.opts.memoryMb} MB is full`) : `the handler's process ended (${signal ?? `exit code ${code}`})${tail ? `: ${tail}` : ''}; it is started again for the next call`);
    });
    child.on('error', (err) => this.failAll(`cannot start the handler's process: ${err.message}`));
    child.send({ load: { source: this.source, filename: this.filename, simulated: this.opts.simulated, outputLimit: this.opts.outputLimit } });
    this.child = child;
    return child;
  }

  private memoryReason(why: string): string {
    return `memory: the handler used more than its limit (${why}); its process was ended and is started again for the next call`;
  }

  /** End the process (a call past its deadline, memory over the limit): its calls fail with `reason`. */
  private kill(reason: string): void {
    const child = this.child;
    this.child = undefined;
    child?.kill('SIGKILL');
    this.failAll(reason);
  }

  private failAll(reason: string): void {
    for (const [id, p] of this.pending) {
      this.pending.delete(id);
      clearTimeout(p.timer);
      p.resolve({ ok: false, reason, output: p.lines.join('\n') });
    }
    this.watchMemory();
  }

  /** On Linux, the resident memory of the process, so that buffers (outside the V8 heap) count too. */
  private watchMemory(): void {
    const busy = this.pending.size > 0 && this.child !== undefined && process.platform === 'linux';
    if (!busy) {
      clearInterval(this.rssTimer);
      this.rssTimer = undefined;
      return;
    }
    if (this.rssTimer !== undefined) return;
    const limitMb = 2 * this.opts.memoryMb + 64;
    this.rssTimer = setInterval(() => {
      const pid = this.child?.pid;
      if (pid === undefined) return;
      let pages = 0;
      try {
        pages = Number(fs.readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]);
      } catch {
        return;
      }
      const mb = (pages * 4096) / 1048576;
      if (mb > limitMb) this.kill(this.memoryReason(`its process reached ${Math.round(mb)} MB, over ${limitMb} MB`));
    }, RSS_POLL_MS);
    this.rssTimer.unref();
  }

  /**
   * Run the handler for one event. Never rejects: a failure is an outcome with its reason.
   * `now` and `seed`: the event's time and random seed, with `simulated`.
   */
  call(event: unknown, clock?: { now: number; seed: number }): Promise<CallOutcome> {
    if (this.closed) return Promise.resolve({ ok: false, reason: 'the cloud is stopping', output: '' });
    const child = this.child ?? this.start();
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        const p = this.pending.get(id);
        if (!p) return;
        this.pending.delete(id);
        resolve({ ok: false, reason: `timeout: the handler did not finish within ${this.opts.timeoutMs} ms; its process was ended and is started again for the next call`, output: p.lines.join('\n') });
        this.kill(`interrupted: the handler's process was ended because another call ran past its ${this.opts.timeoutMs} ms`);
      }, this.opts.timeoutMs);
      this.pending.set(id, { resolve, timer, lines: [] });
      this.watchMemory();
      child.send({ call: id, event, now: clock?.now, seed: clock?.seed }, (err) => {
        if (err && this.pending.has(id)) this.kill(`cannot reach the handler's process: ${err.message}`);
      });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.kill('the cloud is stopping');
  }
}
