// The studio page: editor, build, the WebAssembly world and the drawn devices.
//
// Components: CodeMirror 6 (a maintained editor component; TypeScript highlighting from
// @codemirror/lang-javascript, type errors and completions from the local server's TypeScript
// language service through @codemirror/lint and @codemirror/autocomplete) and uPlot (a small,
// fast chart library for the live preview data). Everything is bundled by esbuild and served by
// `beacon studio` on 127.0.0.1: the page asks nothing of any other host.
//
// The page's panels are modules of their own: the editor (editor.ts), the console
// (consoleView.ts), the devices (deviceView.ts, energyView.ts), the air and the trace
// (tracePanels.ts), the run's progress (progressView.ts); the world runs in a worker (simWorker.ts, worker.ts, energyWorld.ts); page.ts
// holds what they share. This module builds, runs, loads and saves, and starts the page.
import { scriptTracks, TraceRecord } from '../src/studio/records';
import { DeviceInfo, Speed, WorldEnd } from '../src/studio/world';
import { clearConsole, consoleLine, flushConsole, onOutput } from './consoleView';
import { DeviceView } from './deviceView';
import { editor, setApi, setSource, showProblems } from './editor';
import { $, BuildReply, el, Info, Lowered, Pkg, post, setStatus, state } from './page';
import { clearProgress, showProgress } from './progressView';
import { worldFor } from './simWorker';
import { air, clearTrace, drawAir, drawTimeline, flushTrace, onTrace } from './tracePanels';
import type { FromWorker } from './worker';
import './style.css';

async function build(): Promise<boolean> {
  const source = editor.state.doc.toString();
  setStatus('building…');
  const r = await post<BuildReply>('api/build', { source, name: state.name, api: state.api, engine: state.engine });
  showProblems(r.diagnostics.map((d) => ({ severity: d.severity, text: d.text, ...(d.line !== undefined ? { line: d.line } : {}) })));
  $('report').textContent = r.report ?? '';
  if (!r.ok || !r.package) {
    setStatus('build failed');
    return false;
  }
  const bytes = Uint8Array.from(atob(r.package), (ch) => ch.charCodeAt(0));
  state.pkg = { bytes, name: state.name.replace(/\.[^.]+$/, '.bapp'), ...(r.map ? { map: r.map } : {}), source, api: state.api, engine: state.engine };
  setStatus('built');
  return true;
}

function stop(reason = 'stopped'): void {
  if (!state.running) return;
  state.running = false;
  state.world?.post({ op: 'stop', run: state.runId });
  state.ended = reason;
  flushAll();
  state.runEndMs = performance.now();
  consoleLine(`[beacon info] run ended (${reason}) after ${(state.now / 1000).toFixed(3)} s of device time\n`, 'info');
  flushConsole();
  setStatus(`ended: ${reason}`);
  $<HTMLButtonElement>('stop').disabled = true;
}

/**
 * The packages of the devices whose scenario entry names an app (built by the server from the
 * scenario's directory, as `beacon run` builds them), by device name; undefined when one of
 * them cannot be built (the console says why, and nothing runs).
 */
async function scenarioApps(): Promise<Map<string, Pkg> | undefined> {
  const out = new Map<string, Pkg>();
  const sc = state.scenario;
  if (!sc) return out;
  const built = new Map<string, Pkg>();
  for (const [index, d] of sc.lowered.devices.entries()) {
    if (d.app === undefined) continue;
    let pkg = built.get(d.app);
    if (!pkg) {
      const r = await post<BuildReply & { name?: string }>('api/build-app', { name: sc.name, text: sc.text, index, api: state.api, engine: state.engine });
      if (!r.ok || !r.package) {
        consoleLine(r.diagnostics.map((x) => x.text).join('\n') + '\n', 'err error');
        flushConsole();
        setStatus(`${d.app}: build failed`);
        return undefined;
      }
      pkg = { bytes: Uint8Array.from(atob(r.package), (ch) => ch.charCodeAt(0)), name: r.name ?? d.app, ...(r.map ? { map: r.map } : {}), api: state.api, engine: state.engine };
      built.set(d.app, pkg);
    }
    out.set(d.name, pkg);
  }
  return out;
}

/**
 * The packages of the apps the scenario deploys through the loopback cloud, in the order its
 * `cloud-deploy K` lines number them (built by the server as `beacon run` builds them);
 * undefined when one cannot be built (the console says why, and nothing runs).
 */
async function deployedApps(): Promise<Uint8Array[] | undefined> {
  const sc = state.scenario;
  const out: Uint8Array[] = [];
  for (const [index, app] of (sc?.lowered.deploys ?? []).entries()) {
    const r = await post<BuildReply & { name?: string }>('api/build-deploy', { name: sc!.name, text: sc!.text, index, api: state.api, engine: state.engine });
    if (!r.ok || !r.package) {
      consoleLine(r.diagnostics.map((x) => x.text).join('\n') + '\n', 'err error');
      flushConsole();
      setStatus(`${app}: build failed`);
      return undefined;
    }
    out.push(Uint8Array.from(atob(r.package), (ch) => ch.charCodeAt(0)));
  }
  return out;
}

async function run(): Promise<void> {
  stop();
  state.runClickMs = performance.now();
  // A new run from the click on: nothing may read the last run's end as this one's.
  state.ended = undefined;
  const fresh = state.pkg && (state.pkg.source === undefined || (state.pkg.source === editor.state.doc.toString() && state.pkg.api === state.api && state.pkg.engine === state.engine));
  const own = await scenarioApps();
  if (!own) return;
  const deploys = await deployedApps();
  if (!deploys) return;
  const everyDeviceHasOwn = state.scenario !== undefined && state.scenario.lowered.devices.every((d) => d.app !== undefined);
  if (!fresh && !everyDeviceHasOwn && !(await build())) return;
  const pkg = state.pkg;
  const world = await worldFor(state.engine);
  state.world = world;
  state.devicePkgs = own;
  state.stdout = state.stderr = state.trace = '';
  state.ended = undefined;
  state.now = 0;
  clearTrace();
  clearConsole();
  clearProgress();
  const lowered = state.scenario?.lowered;
  // The packages by device, in the scenario's order (one for all without a scenario).
  const count = lowered ? Math.max(1, lowered.devices.length) : 1;
  const packages = Array.from({ length: count }, (_, k) => (lowered?.devices[k] ? own.get(lowered.devices[k].name) : undefined) ?? pkg!);
  const runId = ++state.runId;
  world.onBatch = onBatch;
  const r = await world.request({ op: 'open', id: world.id(), run: runId, ...(lowered ? { script: lowered.script } : {}), devices: 1, utc: Date.now(), packages: packages.map((p) => p.bytes), deploys, speed: speedOf(), until: lowered?.durationMs ?? Infinity });
  if (r.error !== undefined || !r.devices || !r.starts) {
    consoleLine(`beacon-sim: ${state.scenario?.name ?? 'world'}: ${r.error ?? 'cannot open'}\n`, 'err error');
    flushConsole();
    return;
  }
  const devices = r.devices;
  const pkgOf = (d: DeviceInfo): Pkg => packages[Math.min(d.index, packages.length - 1)];
  const tracks = scriptTracks(lowered?.script);
  state.views = devices.map((d, k) => new DeviceView(d, world, r.starts![k], pkgOf(d).name, tracks.get(d.index)));
  $('devices').replaceChildren(...state.views.map((v) => v.root));
  for (const f of r.failed ?? []) onOutput({ stream: 'stderr', device: '', text: `beacon-sim: ${pkgOf(devices[f.index]).name}: ${f.reason}\n` });
  state.running = true;
  $<HTMLButtonElement>('stop').disabled = false;
  $<HTMLButtonElement>('restart').disabled = false;
  setStatus('running');
  requestDraw();
}

/** A slice of the world's run: its output and trace, drawn at the next animation frame. */
function onBatch(b: Extract<FromWorker, { op: 'batch' }>): void {
  if (b.run !== state.runId) return;
  if (b.energy.length > 0) onEnergy(b.energy);
  // Also in the batch of a run the page stopped: the figures where it stopped.
  if (b.progress) showProgress(b.progress);
  if (!state.running) {
    // The energy records of a run the page stopped come after the stop: drawn now.
    for (const v of state.views) v.flush();
    return;
  }
  for (const l of b.output) onOutput(l);
  for (const t of b.trace) onTrace(t);
  state.now = b.now;
  state.worldBusyMs = b.busyMs;
  if (b.end !== undefined) {
    // The words of beacon-sim's last line.
    stop(b.end === WorldEnd.Stopped ? 'the app stopped' : b.end === WorldEnd.Idle ? 'nothing more can happen' : 'the time given ran out');
    return;
  }
  requestDraw();
}

/**
 * The world's energy records, to their devices' panels. Not in state.trace nor the trace panel:
 * the page's trace stays `beacon run`'s. At most one a device per 10 s of device time, so they
 * are parsed here rather than a frame later as the trace is.
 */
function onEnergy(lines: string[]): void {
  const byName = new Map(state.views.map((v) => [v.info.name, v]));
  for (const line of lines) {
    const r = JSON.parse(line) as TraceRecord;
    byName.get(r.dev ?? '')?.energy(r);
  }
}

function changeSpeed(): void {
  state.world?.post({ op: 'speed', speed: speedOf() });
}

function speedOf(): Speed {
  const v = $<HTMLSelectElement>('speed').value;
  return v === 'max' ? 'max' : Number(v);
}

function flushAll(): void {
  flushTrace();
  flushConsole();
  for (const v of state.views) v.flush();
  drawAir();
  drawTimeline();
}

/**
 * Draw at most once per animation frame, from the latest state. As fast as possible, at most ten
 * times a second: enough to watch a run go by, and the page's thread leaves the processor to the
 * world's on a machine with few cores.
 */
let drawRequested = false;
let lastDraw = 0;
const FAST_DRAW_MS = 100;

function requestDraw(): void {
  if (drawRequested) return;
  drawRequested = true;
  const draw = (): void => {
    requestAnimationFrame((now) => {
      drawRequested = false;
      if (!state.running) return;
      lastDraw = performance.now();
      flushAll();
      countFrame(now);
    });
  };
  const wait = speedOf() === 'max' ? lastDraw + FAST_DRAW_MS - performance.now() : 0;
  if (wait > 0) setTimeout(draw, wait);
  else draw();
}

function countFrame(now: number): void {
  state.frames.push(now);
  while (state.frames.length && state.frames[0] < now - 1000) state.frames.shift();
}

// ---- files: save, load, drop

function download(name: string, text: string): void {
  const a = el('a', { href: URL.createObjectURL(new Blob([text], { type: 'application/json' })), download: name });
  a.click();
  URL.revokeObjectURL(a.href);
}

async function setScenario(name: string, text: string): Promise<boolean> {
  const r = await post<Lowered | { error: string }>('api/scenario', { name, text });
  if ('error' in r) {
    consoleLine(r.error + '\n', 'err error');
    flushConsole();
    setStatus('scenario refused');
    return false;
  }
  state.scenario = { name, text, lowered: r };
  $('scenario-name').textContent = `${name} (${r.devices.length} device${r.devices.length === 1 ? '' : 's'})`;
  return true;
}

/** A package from a file: checked by the runtime's own reader, refused as the simulator refuses it. */
async function openPackage(name: string, bytes: Uint8Array): Promise<void> {
  const w = state.world ?? (await worldFor(state.engine));
  const checked = await w.request({ op: 'check', id: w.id(), bytes });
  if (checked.error !== undefined) {
    const text = `beacon-sim: ${name}: ${checked.error}\n`;
    state.stderr += text;
    consoleLine(text, 'err error refused');
    flushConsole();
    setStatus(`${name} refused`);
    return;
  }
  state.pkg = { bytes, name, api: state.api, engine: state.engine };
  if (state.running) {
    for (const v of state.views) {
      const r = await w.request({ op: 'install', id: w.id(), run: state.runId, index: v.info.index, bytes });
      if (r.error !== undefined) consoleLine(`beacon-sim: ${name}: ${r.error}\n`, 'err error');
    }
    flushConsole();
  }
  setStatus(`${name} loaded`);
}

async function openFile(name: string, bytes: Uint8Array): Promise<void> {
  if (name.endsWith('.bapp')) return openPackage(name, bytes);
  const text = new TextDecoder().decode(bytes);
  if (name.endsWith('.json')) {
    let saved: { format?: unknown; name?: string; api?: string; source?: string; scenario?: { name: string; text: string } | null } | undefined;
    try {
      saved = JSON.parse(text) as typeof saved;
    } catch {
      saved = undefined;
    }
    if (saved && saved.format === 'beacon-studio 1' && typeof saved.source === 'string') {
      if (saved.api && state.apiVersions.includes(saved.api)) setApi(saved.api);
      setSource(saved.source, saved.name ?? 'app.ts');
      if (saved.scenario) await setScenario(saved.scenario.name, saved.scenario.text);
      else clearScenario();
      return;
    }
    await setScenario(name, text);
    return;
  }
  setSource(text, name);
}

function clearScenario(): void {
  state.scenario = undefined;
  $('scenario-name').textContent = 'no scenario';
}

// ---- start

declare global {
  interface Window {
    studio: unknown;
  }
}

async function start(): Promise<void> {
  const info = (await (await fetch('api/info')).json()) as Info;
  state.apiVersions = info.apiVersions;
  const apiSel = $<HTMLSelectElement>('api');
  apiSel.replaceChildren(...info.apiVersions.map((v) => el('option', { value: v }, v)));
  setApi(info.api);
  apiSel.onchange = () => setApi(apiSel.value);
  const engSel = $<HTMLSelectElement>('engine');
  engSel.replaceChildren(...info.engines.map((v) => el('option', { value: v }, v)));
  engSel.onchange = () => (state.engine = engSel.value);
  const exSel = $<HTMLSelectElement>('examples');
  exSel.append(...info.examples.map((v) => el('option', { value: v }, v)));
  exSel.onchange = async () => {
    if (!exSel.value) return;
    const name = exSel.value;
    const text = await (await fetch(`api/example/${name}`)).text();
    await openFile(name, new TextEncoder().encode(text));
  };
  $('build').onclick = () => void build();
  $('run').onclick = () => void run();
  $('stop').onclick = () => stop();
  $('restart').onclick = () => void run();
  $<HTMLSelectElement>('speed').onchange = () => changeSpeed();
  $('clear-scenario').onclick = () => clearScenario();
  $('save').onclick = () =>
    download(
      state.name.replace(/\.[^.]+$/, '') + '.studio.json',
      JSON.stringify({ format: 'beacon-studio 1', name: state.name, api: state.api, source: editor.state.doc.toString(), scenario: state.scenario ? { name: state.scenario.name, text: state.scenario.text } : null }, null, 2),
    );
  const load = $<HTMLInputElement>('load');
  load.onchange = async () => {
    const f = load.files?.[0];
    if (f) await openFile(f.name, new Uint8Array(await f.arrayBuffer()));
    load.value = '';
  };
  document.addEventListener('dragover', (e) => {
    e.preventDefault();
    document.body.classList.add('dragging');
  });
  document.addEventListener('dragleave', () => document.body.classList.remove('dragging'));
  document.addEventListener('drop', async (e) => {
    e.preventDefault();
    document.body.classList.remove('dragging');
    for (const f of Array.from(e.dataTransfer?.files ?? [])) await openFile(f.name, new Uint8Array(await f.arrayBuffer()));
  });
  if (info.app) setSource(info.app.source, info.app.name);
  else {
    const text = await (await fetch('api/example/hello.ts')).text();
    setSource(text, 'hello.ts');
  }
  if (info.world) await setScenario(info.world.name, info.world.text);
  const engine = info.engines[0] ?? 'duktape';
  const sim = await worldFor(engine);
  setStatus('ready');
  state.readyMs = performance.now();
  document.body.dataset.ready = 'true';
  // Warm the module's code up while the user reads the page (a Run ends it at once).
  void fetch(`api/warm-up/${engine}`)
    .then((r) => (r.ok ? r.arrayBuffer() : undefined))
    .then((b) => b && !state.running && sim.post({ op: 'warm', bytes: new Uint8Array(b), forMs: 1500 }));
}

/** For the browser tests and the benchmark: what the page shows, without scraping it. */
window.studio = {
  state,
  openFile: (name: string, bytes: number[] | string) => openFile(name, typeof bytes === 'string' ? new TextEncoder().encode(bytes) : Uint8Array.from(bytes)),
  setSource,
  source: () => editor.state.doc.toString(),
  build,
  run,
  stop,
  fps: () => state.frames.length,
  setSpeed: (v: string) => {
    $<HTMLSelectElement>('speed').value = v;
    changeSpeed();
  },
  air,
};

start().catch((err: unknown) => {
  setStatus(`failed to start: ${(err as Error).message}`);
});
