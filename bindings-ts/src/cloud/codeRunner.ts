// The process cloud code runs in (started by codeSandbox.ts, never imported). It is a node
// process of its own, started with node's permission model (no file but this one readable, no
// file writable, no child process, no worker, no native addon) and an empty environment, so a
// handler that escapes the vm context below still finds no store, no secret and no token: the
// cloud's memory is in another process. Inside, the handler runs in a vm context whose `require`
// gives only ALLOWED_MODULES; its console output is kept per call (AsyncLocalStorage follows the
// call across its awaits) and sent back with the call's result.
//
// Messages from the cloud: {load: {source, filename, simulated}} once, then
// {call: id, event, now?, seed?}. Answers: {loaded: true} or {loaded: false, error}, then per
// call {line: id, text} for each line it prints (within the limit) and {id, ok, output, error?}.
import { AsyncLocalStorage } from 'async_hooks';
import * as util from 'util';
import * as vm from 'vm';

/** The node modules a handler may require (docs/cloud.md, "Cloud code"); also as `node:<name>`. */
export const ALLOWED_MODULES = ['assert', 'buffer', 'crypto', 'events', 'http', 'https', 'querystring', 'string_decoder', 'url', 'util', 'zlib'];

interface CallState {
  id: number;
  out: string[];
  bytes: number;
  dropped: number;
  limit: number;
}

const calls = new AsyncLocalStorage<CallState>();

function write(line: string): void {
  const c = calls.getStore();
  // Output outside any call (a timer left behind by an earlier one) has no event to go with.
  if (c === undefined) return;
  const n = Buffer.byteLength(line) + 1;
  if (c.bytes + n > c.limit) {
    c.dropped += n;
    return;
  }
  c.bytes += n;
  c.out.push(line);
  // Sent at once as well: a call ended at its deadline (a loop after a print) keeps what it
  // printed until then, which its process takes with it.
  process.send?.({ line: c.id, text: line });
}

function output(c: CallState): string {
  const text = c.out.join('\n');
  return c.dropped > 0 ? `${text}${text ? '\n' : ''}... (${c.dropped} more bytes of output not kept)` : text;
}

function sandboxRequire(name: unknown): unknown {
  const bare = typeof name === 'string' ? name.replace(/^node:/, '') : '';
  if (!ALLOWED_MODULES.includes(bare)) {
    throw new Error(`require('${String(name).slice(0, 80)}'): not a module cloud code may use (it may use ${ALLOWED_MODULES.join(', ')})`);
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(bare);
}

function errorText(err: unknown): string {
  if (err instanceof Error || (typeof err === 'object' && err !== null && 'message' in err)) {
    const e = err as Error;
    const where = (e.stack ?? '').split('\n').find((l) => l.includes(fileName));
    return `${e.name ?? 'Error'}: ${e.message}${where ? ` (${where.trim().replace(/^at /, 'at ')})` : ''}`.slice(0, 1000);
  }
  return `thrown: ${util.inspect(err, { depth: 2 }).slice(0, 500)}`;
}

/** Date.now and Math.random of a `beacon run`: the event's device time and a seed per event, so two runs print the same. */
const SIMULATED_PRELUDE = `(() => {
  const RealDate = Date;
  let now = 0;
  let s = 1;
  function SimDate(...a) {
    if (!new.target) return new RealDate(now).toString();
    return a.length === 0 ? new RealDate(now) : new RealDate(...a);
  }
  SimDate.prototype = RealDate.prototype;
  SimDate.now = () => now;
  SimDate.parse = RealDate.parse;
  SimDate.UTC = RealDate.UTC;
  globalThis.Date = SimDate;
  Math.random = () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return (t, seed) => { now = t; s = seed | 0; };
})()`;

let handler: ((event: unknown) => unknown) | undefined;
let loadError: string | undefined;
let setClock: ((t: number, seed: number) => void) | undefined;
let outputLimit = 4096;
/** The handler's file name, as its stack traces show it. */
let fileName = 'handler.js';

function load(source: string, filename: string, simulated: boolean, limit: number): void {
  outputLimit = limit;
  fileName = filename;
  const log = (...args: unknown[]): void => write(util.format(...args));
  const console = { log, info: log, debug: log, warn: log, error: log, trace: log };
  const context = vm.createContext({
    console,
    print: log,
    Buffer,
    URL,
    URLSearchParams,
    TextEncoder,
    TextDecoder,
    AbortController,
    fetch,
    structuredClone,
    atob,
    btoa,
    setTimeout,
    clearTimeout,
    setInterval,
    clearInterval,
    setImmediate,
    clearImmediate,
    queueMicrotask,
  });
  if (simulated) setClock = vm.runInContext(SIMULATED_PRELUDE, context) as (t: number, seed: number) => void;
  const module = { exports: {} as unknown };
  try {
    const wrapped = new vm.Script(`(function (module, exports, require) {${source}\n})`, { filename });
    (wrapped.runInContext(context) as (m: unknown, e: unknown, r: unknown) => void)(module, module.exports, sandboxRequire);
    if (typeof module.exports !== 'function') throw new TypeError(`module.exports is ${module.exports === null ? 'null' : typeof module.exports}, not a function (module.exports = async function (event) {...})`);
    handler = module.exports as (event: unknown) => unknown;
  } catch (err) {
    loadError = `the handler did not load: ${errorText(err)}`;
  }
}

async function call(msg: { call: number; event: unknown; now?: number; seed?: number }): Promise<void> {
  const state: CallState = { id: msg.call, out: [], bytes: 0, dropped: 0, limit: outputLimit };
  if (loadError !== undefined || handler === undefined) {
    process.send?.({ id: msg.call, ok: false, output: '', error: loadError ?? 'the handler did not load' });
    return;
  }
  if (setClock && msg.now !== undefined) setClock(msg.now, msg.seed ?? 1);
  const h = handler;
  try {
    await calls.run(state, async () => h(msg.event));
    process.send?.({ id: msg.call, ok: true, output: output(state) });
  } catch (err) {
    process.send?.({ id: msg.call, ok: false, output: output(state), error: errorText(err) });
  }
}

if (require.main === module && process.send !== undefined) {
  process.on('message', (msg: { load?: { source: string; filename: string; simulated: boolean; outputLimit: number }; call?: number }) => {
    if (msg.load) {
      load(msg.load.source, msg.load.filename, msg.load.simulated, msg.load.outputLimit);
      process.send?.(loadError === undefined ? { loaded: true } : { loaded: false, error: loadError });
    } else if (typeof msg.call === 'number') void call(msg as { call: number; event: unknown });
  });
  // A rejection nobody awaits (a handler's stray promise) must not end the process.
  process.on('unhandledRejection', () => undefined);
  process.on('uncaughtException', (err) => write(`uncaught: ${errorText(err)}`));
  // The cloud gone: nothing left to run for.
  process.on('disconnect', () => process.exit(0));
}
