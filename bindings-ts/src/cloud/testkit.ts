// Test and benchmark kit for the cloud: free ports, a throwaway PostgreSQL server, a cloud in a
// child process (so a test can kill it), device ids. Importing this file starts nothing.
import { ChildProcess, spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';
import { toolsRoot } from '../codegen/versions';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

export function tmpDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

let idCounter = 0;
/** A fresh device public id in the product's format (16 bytes as hex). */
export function deviceId(): string {
  idCounter++;
  const rand = Math.floor(Math.random() * 0xffffffff).toString(16).padStart(8, '0');
  return `5eac0b1d${rand}beac051a${idCounter.toString(16).padStart(8, '0')}`;
}

export async function waitFor<T>(what: string, fn: () => Promise<T | undefined> | T | undefined, tries = 200, delayMs = 25): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const v = await fn();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, delayMs));
  }
  throw new Error(`timed out waiting for ${what}`);
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL: a server of our own from Debian's package, in a temporary directory, on a free
// port, as a non-root user (PostgreSQL refuses to run as root).

export function postgresBin(): string | undefined {
  const base = '/usr/lib/postgresql';
  if (!fs.existsSync(base)) return undefined;
  const versions = fs
    .readdirSync(base)
    .filter((v) => fs.existsSync(path.join(base, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length > 0 ? path.join(base, versions[0], 'bin') : undefined;
}

export const POSTGRES_MISSING = "PostgreSQL is not installed (Debian package 'postgresql'; scripts/setup.sh installs it)";

export interface PgServer {
  url(db?: string): string;
  createDatabase(name: string): Promise<string>;
  /** Kill the server at once (as a crash would: `pg_ctl stop -m immediate`), keeping its data. */
  halt(): void;
  /** Start it again after halt(), on the same port with the same data. */
  resume(): void;
  stop(): void;
}

function runAsUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const r = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const g = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  if (r.status === 0 && g.status === 0) return { uid: Number(r.stdout.trim()), gid: Number(g.stdout.trim()) };
  return { uid: 65534, gid: 65534 }; // nobody
}

export async function startPostgres(opts: { fsync?: boolean } = {}): Promise<PgServer> {
  const bin = postgresBin();
  if (!bin) throw new Error(POSTGRES_MISSING);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-pg-'));
  const user = runAsUser();
  if (user) {
    fs.chownSync(dir, user.uid, user.gid);
  }
  const as = user ? { uid: user.uid, gid: user.gid } : {};
  const data = path.join(dir, 'data');
  const init = spawnSync(path.join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'], { ...as, encoding: 'utf8', cwd: dir });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}`);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200${opts.fsync === false ? ' -c fsync=off -c synchronous_commit=off' : ''}`;
  const launch = (): void => {
    const start = spawnSync(path.join(bin, 'pg_ctl'), ['-D', data, '-o', options, '-l', path.join(dir, 'log'), '-w', '-t', '60', 'start'], { ...as, encoding: 'utf8', cwd: dir });
    if (start.status !== 0) {
      const log = fs.existsSync(path.join(dir, 'log')) ? fs.readFileSync(path.join(dir, 'log'), 'utf8') : '';
      throw new Error(`PostgreSQL did not start: ${start.stderr}\n${log}`);
    }
  };
  const halt = (): void => {
    spawnSync(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop'], { ...as, encoding: 'utf8', cwd: dir });
  };
  launch();
  let stopped = false;
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    halt();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  process.on('exit', stop);
  const url = (db = 'postgres'): string => `postgres://postgres@127.0.0.1:${port}/${db}`;
  return {
    url,
    async createDatabase(name: string): Promise<string> {
      const { Client } = await import('pg');
      const c = new Client({ connectionString: url() });
      await c.connect();
      try {
        await c.query(`CREATE DATABASE ${name}`);
      } finally {
        await c.end();
      }
      return url(name);
    },
    halt,
    resume: launch,
    stop,
  };
}

// ---------------------------------------------------------------------------------------------
// Mosquitto: Debian's broker, configured by writeMosquittoConfig (the files `beacon cloud
// mosquitto-config` writes), on a free port, with the open-file limit raised to the hard limit
// so it can hold thousands of device connections.

export const MOSQUITTO = ['/usr/sbin/mosquitto', '/usr/bin/mosquitto'].find((p) => fs.existsSync(p));
export const MOSQUITTO_MISSING = "mosquitto is not installed (Debian package 'mosquitto'; scripts/setup.sh installs it)";

export interface MosquittoServer {
  /** The devices' listener. */
  url: string;
  port: number;
  /** The cloud's listener (`beacon cloud --broker <serviceUrl>`). */
  serviceUrl: string;
  /** The directory of its passwd, acl and mosquitto.conf (pass as --mosquitto-dir). */
  dir: string;
  pid(): number;
  /** A file holding its process id, rewritten at each restart (pass as --mosquitto-pid). */
  pidFile: string;
  /** Everything the broker wrote to stdout and stderr. */
  log(): string;
  /** Make it reread the password file (after devices are added or revoked). */
  reload(): void;
  /** Kill it (SIGKILL by default) and wait until it is gone. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Start it again on the same port with the same files. */
  restart(): Promise<void>;
}

async function portOpen(port: number): Promise<true | undefined> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.on('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', () => resolve(undefined));
  });
}

export async function startMosquitto(store: import('./store').CloudStore, opts: { port?: number } = {}): Promise<MosquittoServer> {
  if (!MOSQUITTO) throw new Error(MOSQUITTO_MISSING);
  const { writeMosquittoConfig } = await import('./mosquitto');
  const dir = tmpDir('beacon-mosquitto-');
  const port = opts.port ?? (await freePort());
  const servicePort = await freePort();
  // As root the broker would switch to the 'mosquitto' user, which cannot read a private
  // temporary directory: it stays root here.
  const files = await writeMosquittoConfig(store, dir, { port, servicePort, user: process.getuid?.() === 0 ? 'root' : undefined });
  let child: ChildProcess;
  let log = '';
  const pidFile = path.join(dir, 'mosquitto.pid');
  const launch = async (): Promise<void> => {
    child = spawn('sh', ['-c', 'ulimit -n "$(ulimit -Hn)"; exec "$0" -c "$1"', MOSQUITTO, files.confFile], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (d: Buffer) => (log += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (log += d.toString()));
    const c = child;
    fs.writeFileSync(pidFile, `${c.pid}\n`);
    process.on('exit', () => c.kill('SIGKILL'));
    for (const p of [port, servicePort]) await waitFor('mosquitto to listen', () => (c.exitCode === null ? portOpen(p) : Promise.reject(new Error(`mosquitto exited: ${log}`))));
  };
  await launch();
  const kill = async (signal: NodeJS.Signals = 'SIGKILL'): Promise<void> => {
    const c = child;
    if (c.exitCode !== null || c.signalCode !== null) return;
    const gone = new Promise<void>((r) => c.once('exit', () => r()));
    c.kill(signal);
    await gone;
  };
  return {
    url: `mqtt://127.0.0.1:${port}`,
    port,
    serviceUrl: files.serviceUrl,
    dir,
    pid: () => child.pid ?? 0,
    pidFile,
    log: () => log,
    reload: () => child.kill('SIGHUP'),
    kill,
    restart: async () => {
      await kill();
      await launch();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The cloud as a separate process (`beacon cloud`), to kill it for real.

export interface CloudProcess {
  child: ChildProcess;
  mqttUrl: string;
  httpUrl: string;
  token: string;
  stderr(): string;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export const BEACON = path.join(toolsRoot(), 'bin', 'beacon.js');

export function beaconSync(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BEACON, ...args], { encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

export function startCloudProcess(args: string[]): Promise<CloudProcess> {
  const child = spawn(process.execPath, [BEACON, 'cloud', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`beacon cloud did not start:\n${err}`)), 30_000);
    const early = (code: number | null): void => {
      clearTimeout(timer);
      reject(new Error(`beacon cloud exited with ${code}:\n${err}`));
    };
    child.once('exit', early);
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /mqtt: (\S+)\nhttp: (\S+)\ntoken: (\S+)\n/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      child.off('exit', early);
      resolve({
        child,
        mqttUrl: m[1],
        httpUrl: m[2],
        token: m[3],
        stderr: () => err,
        kill: async (signal = 'SIGKILL') => {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          await exited;
        },
      });
    });
  });
}

// ---------------------------------------------------------------------------------------------
// A TCP proxy between a device and the cloud that cuts the connection when the cloud sends
// its first batch acknowledgement: the batch is committed, the device never hears of it.

export interface AckCutter {
  url: string;
  /** Acknowledgements cut so far. */
  cut: number;
  /** Cut at the next acknowledgement (armed after each cut only when asked again). */
  arm(): void;
  close(): Promise<void>;
}

export async function startAckCutter(target: { host: string; port: number }): Promise<AckCutter> {
  const mqttPacket = await import('mqtt-packet');
  let armed = false;
  const state = { cut: 0 };
  const sockets = new Set<net.Socket>();
  const server = net.createServer((device) => {
    const cloud = net.connect(target.port, target.host);
    sockets.add(device);
    sockets.add(cloud);
    const parser = mqttPacket.parser({ protocolVersion: 4 });
    let pending: Buffer[] = [];
    parser.on('packet', (p) => {
      if (armed && p.cmd === 'publish' && p.topic.endsWith('/a')) {
        armed = false;
        state.cut++;
        device.destroy();
        cloud.destroy();
      }
    });
    device.on('data', (d) => cloud.write(d));
    cloud.on('data', (d: Buffer) => {
      // Parse first: a chunk holding an acknowledgement is never forwarded.
      pending.push(d);
      parser.parse(d);
      if (!device.destroyed) for (const b of pending) device.write(b);
      pending = [];
    });
    const close = (): void => {
      device.destroy();
      cloud.destroy();
      sockets.delete(device);
      sockets.delete(cloud);
    };
    device.on('close', close);
    cloud.on('close', close);
    device.on('error', close);
    cloud.on('error', close);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `mqtt://127.0.0.1:${port}`,
    get cut() {
      return state.cut;
    },
    arm() {
      armed = true;
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
