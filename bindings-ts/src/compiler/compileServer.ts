// The compile server: a warm compiler for the command line. Every edit of an app is a build the
// cache cannot serve, and a fresh process spends most of such a build loading TypeScript, rollup
// and terser and warming them up (about 1.1 s of CPU for the largest example, 0.45 s warm). So a
// build that finds no cache entry asks a compile server, a background process that keeps the
// compiler loaded, to run the stages (pipeline.ts) for it; the client does everything else (the
// cache, signing, writing the files), so its results are the same byte for byte.
//
//   - The socket is in the tools' cache directory, named by the compiler's fingerprint
//     (buildCache.ts): a client only ever talks to a server of exactly its own compiler. After
//     an upgrade or a rebuild of the tools, the old server is no longer found and ends when idle.
//   - A server is started (detached, no terminal) by a command that compiled without one, when
//     it runs in a terminal, or always with BEACON_COMPILE_SERVER=on; never with
//     BEACON_COMPILE_SERVER=off or in CI (CI set). It ends after IDLE_MS without a request, or at
//     SIGTERM (its process id is in compiler-<fingerprint>.pid beside the socket).
//   - Requests are served one at a time, each with the client's BEACON_HOST_BUILD and
//     JERRYSCRIPT_DIR, and the host tools checked again for each.
//   - Anything but an answer (no server, a refused or broken connection, a server that fails
//     unexpectedly) and the client compiles in its own process, as without a server.
//
// Protocol: one JSON request line; answered by JSON lines: {note} for progress, then {output},
// {buildError: diagnostics}, {hostToolsError: {message, output}} or {failure: message}.
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as net from 'net';
import * as path from 'path';
import { DEFAULT_API_VERSION, typingsFile } from '../codegen/versions';
import { cacheRoot, cachingEnabled } from '../toolsCache';
import { compilerFingerprint } from './buildCache';
import { BuildError, Diagnostic } from './diagnostics';
import { HostToolsError } from './hostTools';
import type { PipelineOptions, PipelineOutput } from './pipeline';

/** A server ends after this long without a request. */
export const IDLE_MS = 15 * 60 * 1000;

/** Environment the stages depend on, sent with each request. */
const FORWARDED_ENV = ['BEACON_HOST_BUILD', 'JERRYSCRIPT_DIR'] as const;

type Request = { options: Omit<PipelineOptions, 'onNote'>; env: Partial<Record<(typeof FORWARDED_ENV)[number], string>> };
type WireOutput = Omit<PipelineOutput, 'packageBytes'> & { packageBase64: string };
type Reply =
  | { note: string }
  | { output: WireOutput }
  | { buildError: Diagnostic[] }
  | { hostToolsError: { message: string; output: string } }
  | { failure: string };

/** Where the server of this compiler listens (undefined: the path would be too long for a socket). */
export function serverSocketPath(): string | undefined {
  const p = path.join(cacheRoot(), 'server', `compiler-${compilerFingerprint().slice(0, 16)}.sock`);
  return Buffer.byteLength(p) < 100 ? p : undefined;
}

type Mode = 'on' | 'off' | 'auto';

function mode(): Mode {
  const v = (process.env.BEACON_COMPILE_SERVER ?? '').toLowerCase();
  if (['on', '1', 'yes', 'true'].includes(v)) return 'on';
  if (['off', '0', 'no', 'false'].includes(v)) return 'off';
  return 'auto';
}

/** Whether this process may start a server (see the header). */
export function mayStartServer(): boolean {
  const m = mode();
  if (m === 'off' || !cachingEnabled()) return false;
  if (m === 'on') return true;
  return !process.env.CI && process.stderr.isTTY === true;
}

/**
 * Run the stages on the server, if one of this compiler answers. Resolves to undefined when there
 * is none or it could not do the build (then compile here); rejects with the build's own
 * BuildError or HostToolsError.
 */
export function compileOnServer(options: PipelineOptions): Promise<PipelineOutput | undefined> {
  const socket = mode() === 'off' ? undefined : serverSocketPath();
  if (!socket || !fs.existsSync(socket)) return Promise.resolve(undefined);
  const { onNote, ...rest } = options;
  const env: Request['env'] = {};
  for (const k of FORWARDED_ENV) if (process.env[k] !== undefined) env[k] = process.env[k];
  const request: Request = { options: rest, env };
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (f: () => void): void => {
      if (!settled) {
        settled = true;
        f();
      }
    };
    const conn = net.createConnection(socket);
    let pending = '';
    conn.on('connect', () => conn.write(JSON.stringify(request) + '\n'));
    conn.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        let reply: Reply;
        try {
          reply = JSON.parse(line) as Reply;
        } catch {
          settle(() => resolve(undefined));
          conn.destroy();
          return;
        }
        if ('note' in reply) onNote?.(reply.note);
        else if ('output' in reply) {
          const { packageBase64, ...out } = reply.output;
          settle(() => resolve({ ...out, packageBytes: Buffer.from(packageBase64, 'base64') }));
        } else if ('buildError' in reply) settle(() => reject(new BuildError(reply.buildError)));
        else if ('hostToolsError' in reply) settle(() => reject(new HostToolsError(reply.hostToolsError.message, reply.hostToolsError.output)));
        else settle(() => resolve(undefined));
      }
    });
    conn.on('error', () => settle(() => resolve(undefined)));
    conn.on('close', () => settle(() => resolve(undefined)));
  });
}

/** Start a server in the background for the builds to come (see mayStartServer). */
export function startServerInBackground(): void {
  // (A server already listening makes the new one end at once; a socket left by one that died is
  // taken over.)
  const socket = serverSocketPath();
  if (!socket) return;
  try {
    fs.mkdirSync(path.dirname(socket), { recursive: true, mode: 0o700 });
    const child = spawn(process.execPath, [path.join(__dirname, 'compileServerMain.js')], {
      detached: true,
      stdio: 'ignore',
      env: process.env,
      // Not the command's directory, which the server would keep busy for a quarter of an hour.
      cwd: path.dirname(socket),
    });
    child.on('error', () => {});
    child.unref();
  } catch {
    // no server: every build compiles in its own process
  }
}

/** Whether something answers on the socket. */
function answers(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const c = net.createConnection(socket);
    c.on('connect', () => {
      c.destroy();
      resolve(true);
    });
    c.on('error', () => resolve(false));
  });
}

/**
 * Serve builds on the socket until IDLE_MS pass without one. Resolves when the server has ended
 * (at once if another server of this compiler already listens).
 */
export async function runServer(socket: string, idleMs = IDLE_MS): Promise<void> {
  fs.mkdirSync(path.dirname(socket), { recursive: true, mode: 0o700 });
  if (fs.existsSync(socket)) {
    if (await answers(socket)) return;
    fs.rmSync(socket, { force: true }); // left by a server that died
  }
  const { runPipeline, warmCompiler } = await import('./pipeline');
  const { forgetEnsuredHostTools } = await import('./hostTools');
  let queue: Promise<void> = Promise.resolve();
  const server = net.createServer();
  let idle: NodeJS.Timeout | undefined;
  const ended = new Promise<void>((resolve) => server.on('close', () => resolve()));
  const arm = (): void => {
    if (idle) clearTimeout(idle);
    idle = setTimeout(() => server.close(), idleMs);
    idle.unref();
  };

  const serve = async (conn: net.Socket, line: string): Promise<void> => {
    const send = (r: Reply): void => {
      if (!conn.destroyed) conn.write(JSON.stringify(r) + '\n');
    };
    let request: Request;
    try {
      request = JSON.parse(line) as Request;
    } catch {
      send({ failure: 'not a request' });
      return;
    }
    const saved = FORWARDED_ENV.map((k) => [k, process.env[k]] as const);
    for (const k of FORWARDED_ENV) {
      if (request.env[k] !== undefined) process.env[k] = request.env[k];
      else delete process.env[k];
    }
    forgetEnsuredHostTools();
    try {
      const out = await runPipeline({ ...request.options, onNote: (note) => send({ note }) });
      const { packageBytes, ...rest } = out;
      send({ output: { ...rest, packageBase64: packageBytes.toString('base64') } });
    } catch (err) {
      if (err instanceof BuildError) send({ buildError: [...err.diagnostics] });
      else if (err instanceof HostToolsError) send({ hostToolsError: { message: err.message, output: err.output } });
      else send({ failure: err instanceof Error ? err.message : String(err) });
    } finally {
      for (const [k, v] of saved) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  };

  server.on('connection', (conn) => {
    arm();
    let pending = '';
    conn.on('error', () => {});
    conn.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      const nl = pending.indexOf('\n');
      if (nl < 0) return;
      const line = pending.slice(0, nl);
      pending = '';
      queue = queue.then(() => serve(conn, line)).finally(() => {
        conn.end();
        arm();
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socket, () => resolve());
  });
  fs.chmodSync(socket, 0o600);
  // Its process id beside the socket, for whoever wants it to end now (kill $(cat ...pid)).
  const pidFile = socket.replace(/\.sock$/, '.pid');
  fs.writeFileSync(pidFile, `${process.pid}\n`);
  arm();
  // Warm while no one asks yet (a request waits for this, and is then fast).
  queue = queue.then(async () => {
    try {
      await warmCompiler(DEFAULT_API_VERSION, typingsFile(DEFAULT_API_VERSION));
    } catch {
      // only a slower first build
    }
  });
  const cleanup = (): void => {
    try {
      fs.rmSync(socket, { force: true });
      fs.rmSync(pidFile, { force: true });
    } catch {
      // gone already
    }
  };
  process.once('SIGTERM', () => server.close());
  process.once('SIGINT', () => server.close());
  await ended;
  cleanup();
}
