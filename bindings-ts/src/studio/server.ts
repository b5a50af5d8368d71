// The local server of `beacon studio`: the page, the WebAssembly simulator, and the tools the
// page cannot run itself, all on 127.0.0.1 and nothing else.
//
// The page builds with the CLI's own compiler (compileApp, through POST /api/build) so a build
// in the page is the build `beacon build` makes: same checks, same package, same size report.
// Scenarios are checked and lowered by the CLI's scenario.ts (POST /api/scenario). The editor's
// type errors and completions come from a TypeScript language service here, configured as the
// compiler's type check is (languageService.ts), rather than from a copy of TypeScript shipped
// to the page: one TypeScript, one set of typings, nothing to keep in step.
//
// The page itself is bundled with esbuild when the server starts (esbuild: a maintained bundler
// that takes TypeScript directly and bundles CodeMirror and uPlot in well under a second).
import * as fs from 'fs';
import * as http from 'http';
import * as os from 'os';
import * as path from 'path';
import { execFile } from 'child_process';
import type { AddressInfo } from 'net';
import { API_VERSIONS, ApiVersion, DEFAULT_API_VERSION, isApiVersion, toolsRoot, typingsFile } from '../codegen/versions';
import { repoRoot } from '../compiler/hostTools';
import { EditorService } from './languageService';

export interface StudioOptions {
  port?: number;
  /** App opened at start. */
  app?: string;
  /** Scenario opened at start. */
  world?: string;
  api?: ApiVersion;
  /** Progress lines (the WebAssembly build). */
  onNote?: (line: string) => void;
}

export interface StudioServer {
  url: string;
  server: http.Server;
  close(): Promise<void>;
}

const ENGINES = ['duktape', 'jerryscript'] as const;

export function wasmDir(): string {
  return process.env.BEACON_WASM_BUILD_DIR ? path.resolve(process.env.BEACON_WASM_BUILD_DIR) : path.join(repoRoot(), 'build', 'wasm');
}

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(p));
    else if (/\.(c|h|cmake)$/.test(entry.name)) newest = Math.max(newest, fs.statSync(p).mtimeMs);
  }
  return newest;
}

/** Build the WebAssembly simulator (scripts/build-wasm.sh) unless it is newer than the C sources. */
export async function ensureWasm(onNote?: (line: string) => void): Promise<string> {
  const dir = wasmDir();
  const module = path.join(dir, 'beacon-sim-duktape.wasm');
  const sources = Math.max(newestSource(path.join(repoRoot(), 'src')), fs.statSync(path.join(repoRoot(), 'CMakeLists.txt')).mtimeMs);
  if (fs.existsSync(module) && fs.statSync(module).mtimeMs >= sources) return dir;
  onNote?.('building the WebAssembly simulator (scripts/build-wasm.sh)...');
  await new Promise<void>((resolve, reject) => {
    execFile('bash', [path.join(repoRoot(), 'scripts', 'build-wasm.sh')], { cwd: repoRoot(), maxBuffer: 16 << 20 }, (err, _out, stderr) => {
      if (err) reject(new Error(`the WebAssembly simulator did not build:\n${stderr.trim()}`));
      else resolve();
    });
  });
  // Sources the module does not depend on (the Zephyr port) may be newer: the build just made
  // is current all the same, so the next start need not ask the build again.
  const now = new Date();
  fs.utimesSync(module, now, now);
  return dir;
}

/** The page: index.html, studio.js and studio.css, bundled by esbuild. */
export async function bundlePage(): Promise<Map<string, Buffer>> {
  const esbuild = await import('esbuild');
  const pageDir = path.join(toolsRoot(), 'studio');
  const r = await esbuild.build({
    // The page, and the world's thread it starts (worker.ts).
    entryPoints: [path.join(pageDir, 'main.ts'), path.join(pageDir, 'worker.ts')],
    bundle: true,
    write: false,
    format: 'iife',
    target: 'es2022',
    minify: true,
    outdir: '/',
    logLevel: 'silent',
    loader: { '.css': 'css' },
  });
  const files = new Map<string, Buffer>();
  for (const f of r.outputFiles) files.set(path.basename(f.path), Buffer.from(f.contents));
  files.set('index.html', fs.readFileSync(path.join(pageDir, 'index.html')));
  return files;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.ts': 'text/plain; charset=utf-8',
};

async function readBody(req: http.IncomingMessage, limit = 4 << 20): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > limit) throw new Error('request too large');
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function send(res: http.ServerResponse, status: number, type: string, body: string | Buffer): void {
  res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
  res.end(body);
}

function sendJson(res: http.ServerResponse, value: unknown, status = 200): void {
  send(res, status, TYPES['.json'], JSON.stringify(value));
}

export function examplesDir(): string {
  return path.join(repoRoot(), 'examples');
}

/** A file name the page gave, kept to a plain name (the server writes it into its own directory). */
function plainName(name: unknown, ext: string): string {
  const base = typeof name === 'string' ? path.basename(name).replace(/[^\w.-]/g, '_') : '';
  return base.endsWith(ext) && base.length > ext.length ? base : `app${ext}`;
}

export interface BuildReply {
  ok: boolean;
  /** The package, base64. */
  package?: string;
  /** Source map with its sources named as the page shows them (the file name). */
  map?: unknown;
  report?: string;
  diagnostics: { severity: string; message: string; file?: string; line?: number; column?: number; text: string }[];
}

/** Build a source with the CLI's compiler; the package, its map and the size report. */
export async function buildSource(source: string, name: string, api: string, engine: string): Promise<BuildReply> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-studio-'));
  const file = path.join(dir, name);
  fs.writeFileSync(file, source);
  try {
    return await buildFile(file, api, engine, dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Build an app where it lies (so its imports resolve as `beacon run` resolves them), the package
 * going to a directory of its own; diagnostics name files relative to `shownFrom`.
 */
export async function buildFile(file: string, api: string, engine: string, shownFrom = path.dirname(file)): Promise<BuildReply> {
  const compiler = await import('../compiler/light');
  const { sizeReport } = await import('../cli/build');
  const name = path.basename(file);
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-studio-out-'));
  const shown = (d: import('../compiler/light').Diagnostic): BuildReply['diagnostics'][number] => ({
    severity: d.severity,
    message: d.message,
    ...(d.file !== undefined ? { file: path.basename(d.file) } : {}),
    ...(d.line !== undefined ? { line: d.line } : {}),
    ...(d.column !== undefined ? { column: d.column } : {}),
    text: compiler.formatDiagnostic(d, shownFrom),
  });
  try {
    // The studio keeps its own compiler warm (startStudio): no compile server.
    const r = await compiler.compileApp({ entry: file, apiVersion: api, engine: engine as 'duktape', outFile: path.join(out, name.replace(/\.[^.]+$/, '.bapp')), server: false });
    const map = JSON.parse(fs.readFileSync(r.mapFile, 'utf8')) as { sources: string[] };
    map.sources = map.sources.map((s) => path.basename(s));
    return {
      ok: true,
      package: fs.readFileSync(r.outFile).toString('base64'),
      map,
      // Named as the CLI names a package built beside its source.
      report: sizeReport({ ...r, outFile: path.basename(r.outFile) }, compiler.formatEngineVersion(r.pack.engineVersion)),
      diagnostics: r.warnings.map(shown),
    };
  } catch (err) {
    if (err instanceof compiler.BuildError) return { ok: false, diagnostics: err.diagnostics.map(shown) };
    return { ok: false, diagnostics: [{ severity: 'error', message: (err as Error).message, text: `error: ${(err as Error).message}` }] };
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}

/**
 * The app a scenario names for device `index`, built as `beacon run --world` builds it: a source
 * with the CLI's compiler, a package as it is. Relative paths are resolved against `dir`, the
 * scenario's directory. The reply is a build's, with the package's name.
 */
export async function buildScenarioApp(text: string, name: string, index: number, api: string, engine: string, dir: string): Promise<BuildReply & { name?: string }> {
  return buildNamedApp(text, name, api, engine, dir, (lowered) => ({ app: lowered.devices[index]?.app, what: `devices[${index}].app`, none: `devices[${index}] has no app` }));
}

/**
 * The k-th app a scenario deploys through the loopback cloud (its `cloudDeploy` events, numbered
 * as the world script's `cloud-deploy K` lines and `beacon run`'s --deploy), built as `beacon
 * run --world` builds it.
 */
export async function buildScenarioDeploy(text: string, name: string, k: number, api: string, engine: string, dir: string): Promise<BuildReply & { name?: string }> {
  return buildNamedApp(text, name, api, engine, dir, (lowered) => ({ app: lowered.deployApps[k]?.app, what: lowered.deployApps[k]?.at ?? '', none: `the scenario deploys no app ${k}` }));
}

async function buildNamedApp(
  text: string,
  name: string,
  api: string,
  engine: string,
  dir: string,
  pick: (lowered: import('../world/scenarioLower').LoweredWorld) => { app: string | undefined; what: string; none: string },
): Promise<BuildReply & { name?: string }> {
  const fail = (message: string): BuildReply => ({ ok: false, diagnostics: [{ severity: 'error', message, text: `beacon run: ${name}: ${message}` }] });
  const { parseScenario, lowerScenario, ScenarioError } = await import('../world/scenario');
  let picked: { app: string | undefined; what: string; none: string };
  try {
    picked = pick(lowerScenario(parseScenario(text, name), path.join(dir, name)));
  } catch (err) {
    if (err instanceof ScenarioError) return fail(err.message);
    throw err;
  }
  const { app, what, none } = picked;
  if (app === undefined) return fail(none);
  const shown = path.relative(dir, app) || path.basename(app);
  if (!fs.existsSync(app) || !fs.statSync(app).isFile()) return fail(`${what}: cannot read ${shown} (apps are looked for beside the scenario, in ${dir})`);
  if (app.endsWith('.bapp')) return { ok: true, name: path.basename(app), package: fs.readFileSync(app).toString('base64'), diagnostics: [] };
  if (!/\.(ts|js|mjs|mts)$/.test(app)) return fail(`${what}: ${shown} is not a source (.ts, .js) or a package (.bapp)`);
  const r = await buildFile(app, api, engine, dir);
  return { ...r, name: path.basename(app).replace(/\.[^.]+$/, '.bapp') };
}

/** Check and lower a scenario as `beacon run --world` does (relative apps: from `dir`). */
export async function lowerScenarioText(text: string, name: string, dir = examplesDir()): Promise<{ script: string; durationMs?: number; devices: { name: string; app?: string }[]; deploys: string[] } | { error: string }> {
  const { parseScenario, lowerScenario, ScenarioError } = await import('../world/scenario');
  try {
    const file = path.join(dir, name);
    const lowered = lowerScenario(parseScenario(text, name), file);
    return {
      script: lowered.script,
      ...(lowered.durationMs !== undefined ? { durationMs: lowered.durationMs } : {}),
      devices: lowered.devices.map((d) => ({ name: d.name, ...(d.app ? { app: path.basename(d.app) } : {}) })),
      // The apps deployed through the loopback cloud, K-th for `cloud-deploy K` (api/build-deploy).
      deploys: lowered.deployApps.map((d) => path.basename(d.app)),
    };
  } catch (err) {
    if (err instanceof ScenarioError) return { error: `beacon run: ${err.message}` };
    throw err;
  }
}

/**
 * The app the page runs once after loading, for a moment, so the browser has optimised the
 * module's hot code before the user's first Run (see worker.ts, warm): JSON, strings, arrays,
 * closures, timers and the event loop, which every app uses.
 */
const WARM_UP_APP = `let s = 0;
timers.repeat(5, () => {
  const o = { n: s % 97, list: [1, 2, 3], text: 'w' + s };
  for (let i = 0; i < 5; i++) s += JSON.stringify(o).length + JSON.parse('[' + i + ']')[0] + o.text.indexOf('1') + o.list.map((x) => x * i).length;
});
`;

export async function startStudio(opts: StudioOptions = {}): Promise<StudioServer> {
  const wasm = await ensureWasm(opts.onNote);
  const page = await bundlePage();
  const editor = new EditorService();
  const api = opts.api ?? DEFAULT_API_VERSION;
  const startApp = opts.app ? { name: path.basename(opts.app), source: fs.readFileSync(opts.app, 'utf8') } : undefined;
  const startWorld = opts.world ? { name: path.basename(opts.world), text: fs.readFileSync(opts.world, 'utf8') } : undefined;
  // Apps a scenario names are looked for beside it: the scenario given on the command line has
  // a directory; one opened in the page (which gets no path) is taken to lie in examples/.
  const scenarioDir = (name: string, text: string): string => (startWorld && opts.world && name === startWorld.name && text === startWorld.text ? path.dirname(path.resolve(opts.world)) : examplesDir());
  const engines = ENGINES.filter((e) => fs.existsSync(path.join(wasm, `beacon-sim-${e}.wasm`)));
  const warmUps = new Map<string, Promise<BuildReply>>();

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const p = url.pathname;
    if (req.method === 'GET') {
      if (p === '/') return send(res, 200, TYPES['.html'], page.get('index.html')!);
      const bundled = page.get(p.slice(1));
      if (bundled) return send(res, 200, TYPES[path.extname(p)] ?? 'application/octet-stream', bundled);
      const m = /^\/wasm\/(beacon-sim-(?:duktape|jerryscript)\.(?:js|wasm))$/.exec(p);
      if (m && fs.existsSync(path.join(wasm, m[1]))) return send(res, 200, TYPES[path.extname(m[1])], fs.readFileSync(path.join(wasm, m[1])));
      if (p === '/api/info') {
        const examples = fs.readdirSync(examplesDir()).filter((f) => /\.(ts|js|json)$/.test(f)).sort();
        return sendJson(res, { apiVersions: API_VERSIONS, api, engines, examples, app: startApp, world: startWorld });
      }
      const warm = /^\/api\/warm-up\/(duktape|jerryscript)$/.exec(p);
      if (warm) {
        let built = warmUps.get(warm[1]);
        if (!built) warmUps.set(warm[1], (built = buildSource(WARM_UP_APP, 'warm-up.js', DEFAULT_API_VERSION, warm[1])));
        const r = await built;
        return r.ok && r.package ? send(res, 200, 'application/octet-stream', Buffer.from(r.package, 'base64')) : send(res, 500, 'text/plain', 'the warm-up app did not build');
      }
      const ex = /^\/api\/example\/([\w.-]+)$/.exec(p);
      if (ex && fs.existsSync(path.join(examplesDir(), ex[1]))) return send(res, 200, TYPES['.ts'], fs.readFileSync(path.join(examplesDir(), ex[1])));
      return send(res, 404, 'text/plain', 'not found');
    }
    if (req.method !== 'POST') return send(res, 405, 'text/plain', 'method not allowed');
    const body = JSON.parse(await readBody(req)) as Record<string, unknown>;
    const version = typeof body.api === 'string' && isApiVersion(body.api) ? body.api : api;
    const source = typeof body.source === 'string' ? body.source : '';
    switch (p) {
      case '/api/build':
        return sendJson(res, await buildSource(source, plainName(body.name, '.ts'), version, typeof body.engine === 'string' ? body.engine : 'duktape'));
      case '/api/diagnostics':
        return sendJson(res, editor.diagnostics(source, version));
      case '/api/completions':
        return sendJson(res, editor.completions(source, version, Number(body.pos) || 0));
      case '/api/scenario': {
        const name = plainName(body.name, '.json');
        const text = typeof body.text === 'string' ? body.text : '';
        return sendJson(res, await lowerScenarioText(text, name, scenarioDir(name, text)));
      }
      case '/api/build-app': {
        const name = plainName(body.name, '.json');
        const text = typeof body.text === 'string' ? body.text : '';
        return sendJson(res, await buildScenarioApp(text, name, Number(body.index) || 0, version, typeof body.engine === 'string' ? body.engine : 'duktape', scenarioDir(name, text)));
      }
      case '/api/build-deploy': {
        const name = plainName(body.name, '.json');
        const text = typeof body.text === 'string' ? body.text : '';
        return sendJson(res, await buildScenarioDeploy(text, name, Number(body.index) || 0, version, typeof body.engine === 'string' ? body.engine : 'duktape', scenarioDir(name, text)));
      }
      default:
        return send(res, 404, 'text/plain', 'not found');
    }
  };

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, { error: (err as Error).message }, 500);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // 127.0.0.1 only: the page builds and runs code, which no other machine may ask for.
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  // A warm compiler for the first Build (unchanged apps come from the build cache, which loads
  // no compiler): loaded and run once in the background while the user reads the page.
  const warming = new Promise<void>((resolve) => setImmediate(resolve))
    .then(async () => {
      const { warmCompiler } = await import('../compiler/pipeline');
      await warmCompiler(api, typingsFile(api));
    })
    .catch(() => {
      // only a slower first build
    });
  return {
    url: `http://127.0.0.1:${port}/`,
    server,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
      await warming;
    },
  };
}
