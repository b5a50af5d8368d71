// The studio page: editor, build, the WebAssembly world and the drawn devices.
//
// Components: CodeMirror 6 (a maintained editor component; TypeScript highlighting from
// @codemirror/lang-javascript, type errors and completions from the local server's TypeScript
// language service through @codemirror/lint and @codemirror/autocomplete) and uPlot (a small,
// fast chart library for the live preview data). Everything is bundled by esbuild and served by
// `beacon studio` on 127.0.0.1: the page asks nothing of any other host.
import { autocompletion, CompletionContext, CompletionResult } from '@codemirror/autocomplete';
import { javascript } from '@codemirror/lang-javascript';
import { Diagnostic as CmDiagnostic, forceLinting, linter, lintGutter } from '@codemirror/lint';
import { basicSetup, EditorView } from 'codemirror';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { lookupPosition, SourceMapV3 } from '../src/compiler/sourceMap';
import { AirModel, CloudModel, layoutTrack, LocationModel, scriptTracks, TraceRecord } from '../src/studio/records';
import { DeviceInfo, INPUT, OutputLine, Speed, WorldEnd } from '../src/studio/world';
import type { DeviceStart, FromWorker, ToWorker } from './worker';
import './style.css';

interface Info {
  apiVersions: string[];
  api: string;
  engines: string[];
  examples: string[];
  app?: { name: string; source: string };
  world?: { name: string; text: string };
}

interface BuildReply {
  ok: boolean;
  package?: string;
  map?: SourceMapV3;
  report?: string;
  diagnostics: { severity: string; message: string; line?: number; column?: number; text: string }[];
}

interface Lowered {
  script: string;
  durationMs?: number;
  /** `app`: the file the scenario names for the device (built by the server, api/build-app). */
  devices: { name: string; app?: string }[];
}


const $ = <T extends HTMLElement = HTMLElement>(id: string): T => document.getElementById(id) as T;

async function post<T>(url: string, body: unknown): Promise<T> {
  const r = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  return (await r.json()) as T;
}

// ---- state

interface Pkg {
  bytes: Uint8Array;
  name: string;
  map?: SourceMapV3;
  source?: string;
  api: string;
  engine: string;
}

const state = {
  api: '0.2.6',
  apiVersions: [] as string[],
  engine: 'duktape',
  name: 'app.ts',
  scenario: undefined as { name: string; text: string; lowered: Lowered } | undefined,
  /** The package Run uses: built from the editor's text, or dropped onto the page. */
  pkg: undefined as Pkg | undefined,
  /** Packages of the devices whose scenario entry names its own app, by device name. */
  devicePkgs: new Map<string, Pkg>(),
  world: undefined as SimWorker | undefined,
  /** World time of the latest output the world gave. */
  now: 0,
  running: false,
  views: [] as DeviceView[],
  stdout: '',
  stderr: '',
  trace: '',
  ended: undefined as string | undefined,
  frames: [] as number[],
  /** performance.now() when Run was clicked and when the run ended (shown): for the benchmark. */
  runClickMs: 0,
  runEndMs: 0,
  /** Real time the world's own work took in the run (in its worker). */
  worldBusyMs: 0,
  /** Counts runs, so a slice or frame of a run that was stopped does nothing. */
  runId: 0,
  /** performance.now() when the page became usable (editor, examples and simulator loaded). */
  readyMs: 0,
};

/**
 * The world's thread (worker.ts): requests with replies (open, check, install) and messages
 * (speed, inputs, stop); the world's output comes back in batches, one per slice it ran.
 */
class SimWorker {
  private nextId = 1;
  private readonly waiting = new Map<number, (r: Extract<FromWorker, { op: 'reply' }>) => void>();
  private readonly loaded: Promise<void>;
  onBatch: (b: Extract<FromWorker, { op: 'batch' }>) => void = () => {};

  /**
   * The page fetches the worker's script, the engine's emscripten glue and the module, and
   * starts the worker from a blob of the two scripts: the worker then asks the network for
   * nothing (and nothing a worker fetches escapes what the page's own requests show).
   */
  static async create(engine: string): Promise<SimWorker> {
    const text = async (url: string): Promise<string> => {
      const r = await fetch(url);
      if (!r.ok) throw new Error(`cannot load ${url}`);
      return r.text();
    };
    const [glue, script, wasm] = await Promise.all([text(`wasm/beacon-sim-${engine}.js`), text('worker.js'), fetch(`wasm/beacon-sim-${engine}.wasm`).then((r) => r.arrayBuffer())]);
    const url = URL.createObjectURL(new Blob([glue, '\n', script], { type: 'text/javascript' }));
    const sim = new SimWorker(new Worker(url), engine, wasm);
    await sim.loaded;
    URL.revokeObjectURL(url);
    return sim;
  }

  private constructor(
    private readonly worker: Worker,
    engine: string,
    wasm: ArrayBuffer,
  ) {
    this.loaded = new Promise((resolve, reject) => {
      this.worker.onmessage = (e: MessageEvent<FromWorker>) => {
        const m = e.data;
        if (m.op === 'loaded') resolve();
        else if (m.op === 'batch') this.onBatch(m);
        else if (m.id === 0) reject(new Error(m.error));
        else {
          this.waiting.get(m.id)?.(m);
          this.waiting.delete(m.id);
        }
      };
      this.worker.onerror = (e) => reject(new Error(e.message));
    });
    this.worker.postMessage({ op: 'load', engine, wasm } satisfies ToWorker, [wasm]);
  }

  post(m: ToWorker): void {
    this.worker.postMessage(m);
  }

  request(m: ToWorker & { id: number }): Promise<Extract<FromWorker, { op: 'reply' }>> {
    return new Promise((resolve) => {
      this.waiting.set(m.id, resolve);
      this.post(m);
    });
  }

  id(): number {
    return this.nextId++;
  }
}

const worlds = new Map<string, Promise<SimWorker>>();

/** One world thread per engine, made once. */
function worldFor(engine: string): Promise<SimWorker> {
  let w = worlds.get(engine);
  if (!w) {
    w = SimWorker.create(engine);
    worlds.set(engine, w);
  }
  return w;
}

// ---- editor

async function lintSource(view: EditorView): Promise<CmDiagnostic[]> {
  // JavaScript apps are not type-checked by the build (checkJs off): Build reports their errors.
  if (!/\.m?ts$/.test(state.name)) {
    showProblems([]);
    return [];
  }
  const source = view.state.doc.toString();
  const list = await post<{ from: number; to: number; severity: 'error' | 'warning'; message: string; line: number }[]>('api/diagnostics', { source, api: state.api });
  if (view.state.doc.toString() !== source) return [];
  showProblems(list.map((d) => ({ severity: d.severity, text: `${state.name}:${d.line}: ${d.severity}: ${d.message}`, line: d.line })));
  const len = view.state.doc.length;
  return list.map((d) => ({ from: Math.min(d.from, len), to: Math.min(Math.max(d.to, d.from), len), severity: d.severity, message: d.message }));
}

async function completeSource(ctx: CompletionContext): Promise<CompletionResult | null> {
  const word = ctx.matchBefore(/[\w$]*/);
  if (!word || (word.from === word.to && !ctx.explicit && !/\.$/.test(ctx.state.sliceDoc(word.from - 1, word.from)))) return null;
  const items = await post<{ label: string; type: string }[]>('api/completions', { source: ctx.state.doc.toString(), pos: ctx.pos, api: state.api });
  return { from: word.from, options: items, validFor: /^[\w$]*$/ };
}

const editor = new EditorView({
  parent: $('editor'),
  extensions: [
    basicSetup,
    javascript({ typescript: true }),
    lintGutter(),
    linter(lintSource, { delay: 400 }),
    autocompletion({ override: [completeSource] }),
    EditorView.updateListener.of((u) => {
      if (u.docChanged && state.pkg?.source !== undefined && state.pkg.source !== u.state.doc.toString()) setStatus('edited: Build or Run to use the change');
    }),
  ],
});

function setSource(text: string, name = state.name): void {
  state.name = name;
  editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: text } });
  forceLinting(editor);
}

function showProblems(list: { severity: string; text: string; line?: number }[]): void {
  const box = $('problems');
  box.replaceChildren(
    ...list.map((p) => {
      const div = document.createElement('div');
      div.className = `problem ${p.severity}`;
      div.textContent = p.text;
      if (p.line !== undefined) {
        div.dataset.line = String(p.line);
        div.onclick = () => {
          const line = editor.state.doc.line(Math.min(p.line!, editor.state.doc.lines));
          editor.dispatch({ selection: { anchor: line.from }, scrollIntoView: true });
          editor.focus();
        };
      }
      return div;
    }),
  );
}

function setStatus(text: string): void {
  $('status').textContent = text;
}

// ---- console

let pendingConsole: { text: string; cls: string }[] = [];

function consoleLine(text: string, cls: string): void {
  pendingConsole.push({ text, cls });
}

function flushConsole(): void {
  if (pendingConsole.length === 0) return;
  const box = $('console-lines');
  const frag = document.createDocumentFragment();
  // A fast run prints more between two frames than the console keeps: only those kept are made.
  for (const l of pendingConsole.length > 2000 ? pendingConsole.slice(-2000) : pendingConsole) {
    const span = document.createElement('span');
    span.className = l.cls;
    span.textContent = l.text;
    frag.appendChild(span);
  }
  pendingConsole = [];
  box.appendChild(frag);
  while (box.childNodes.length > 2000) box.firstChild?.remove();
}

/** Error locations in the compiled script shown in the TypeScript source (as rewriteLocations). */
function mapLocations(text: string, device = ''): string {
  const pkg = state.devicePkgs.get(device) ?? state.pkg;
  if (!pkg?.map) return text;
  const map = pkg.map;
  const name = map.file ?? 'app.min.js';
  const re = new RegExp(`(?<![\\w./-])${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:(\\d+)(?::(\\d+))?`, 'g');
  return text.replace(re, (whole, line: string, column: string | undefined) => {
    const pos = lookupPosition(map, Number(line), column === undefined ? undefined : Number(column));
    return pos ? `${pos.source}:${pos.line}:${pos.column}` : whole;
  });
}

function onOutput(line: OutputLine): void {
  if (line.stream === 'stdout') {
    state.stdout += line.text;
    consoleLine(line.text, 'out');
  } else {
    const text = mapLocations(line.text, line.device);
    state.stderr += text;
    consoleLine(text, `err ${line.level ?? ''}`);
  }
}

// ---- devices

const ORIENTATIONS: Record<string, number[]> = {
  'flat-top': [0, 0, 1],
  'flat-bottom': [0, 0, -1],
  'vertical-ble': [1, 0, 0],
  'vertical-gnss': [-1, 0, 0],
  'vertical-cloud': [0, 1, 0],
};

/** Record kinds the device panel draws itself; anything else is listed under "air, location, cloud". */
const DRAWN = new Set(['boot', 'app', 'print', 'log', 'led', 'button', 'battery', 'current', 'power', 'temperature', 'motion', 'motion-detected', 'accel', 'gyro', 'imu-event', 'preview', 'reset', 'time-sync', 'imu-fault', 'fault']);

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  e.append(...children);
  return e;
}

class DeviceView {
  readonly root: HTMLElement;
  private readonly leds: HTMLElement[] = [];
  /** The latest state of each LED from the trace; drawn at the next frame. */
  private readonly ledState: ({ on: boolean; rgb: string } | undefined)[] = [];
  private ledsDirty = false;
  private readonly status: HTMLElement;
  private statusText: string | undefined;
  private readonly controlValues = new Map<string, string | boolean>();
  private readonly other: HTMLElement;
  private readonly otherRows: string[] = [];
  private otherDirty = false;
  private readonly track: HTMLCanvasElement;
  private readonly gnssStatus: HTMLElement;
  readonly location = new LocationModel();
  private locationDrawn = -1;
  readonly cloud = new CloudModel();
  private cloudDrawn = -1;
  private readonly cloudBox: HTMLElement;
  private chart: uPlot | undefined;
  private readonly chartBox: HTMLElement;
  private series: string[] = [];
  private data: number[][] = [[]];
  private chartDirty = false;
  private readonly controls: Record<string, HTMLInputElement | HTMLSelectElement> = {};

  constructor(
    readonly info: DeviceInfo,
    private readonly world: SimWorker,
    start: DeviceStart,
    readonly appName: string,
    track: { t: number; lat: number; lon: number }[] = [],
  ) {
    const i = info.index;
    this.location.track = track;
    const ring = el('div', { class: 'ring', id: `ring-${i}` });
    for (let k = 0; k < info.leds; k++) {
      const a = (2 * Math.PI * k) / info.leds - Math.PI / 2;
      const led = el('div', { class: 'led', id: `led-${i}-${k}`, 'data-on': 'false', 'data-rgb': '0,0,0', title: `LED ${k}` });
      led.style.left = `${50 + 40 * Math.cos(a)}%`;
      led.style.top = `${50 + 40 * Math.sin(a)}%`;
      ring.appendChild(led);
      this.leds.push(led);
    }
    const buttons = el('div', { class: 'buttons' });
    // Only the ai-beacon has a side button (docs/world.md, profiles).
    const hasSide = info.profile === 'ai-beacon';
    for (const [b, label] of hasSide ? ([[0, 'main'], [1, 'side']] as const) : ([[0, 'main']] as const)) {
      const btn = el('button', { class: 'hw-button', id: `button-${label}-${i}`, title: 'click: short press; hold: long press' }, label);
      btn.onpointerdown = (e) => {
        btn.setPointerCapture(e.pointerId);
        this.input(INPUT.BUTTON, [b, 1]);
      };
      btn.onpointerup = () => this.input(INPUT.BUTTON, [b, 0]);
      const long = el('button', { class: 'small', id: `button-${label}-long-${i}`, title: 'hold 3.5 s of device time' }, 'long');
      long.onclick = () => this.press(b, 3500);
      const vlong = el('button', { class: 'small', title: 'hold 5.5 s of device time' }, 'very long');
      vlong.onclick = () => this.press(b, 5500);
      buttons.append(el('span', { class: 'button-group' }, btn, long, vlong));
    }
    const slider = (name: string, label: string, min: number, max: number, step: number, value: number, send: (v: number) => void): HTMLElement => {
      const input = el('input', { type: 'range', min: String(min), max: String(max), step: String(step), value: String(value), id: `${name}-${i}` });
      const out = el('output', {}, String(value));
      input.oninput = () => (out.textContent = input.value);
      input.onchange = () => send(Number(input.value));
      this.controls[name] = input;
      return el('label', {}, label, input, out);
    };
    const check = (name: string, label: string, value: boolean, send: () => void): HTMLElement => {
      const input = el('input', { type: 'checkbox', id: `${name}-${i}` });
      input.checked = value;
      input.onchange = send;
      this.controls[name] = input;
      return el('label', {}, input, label);
    };
    const power = (): void => this.input(INPUT.POWER, [Number((this.controls.external as HTMLInputElement).checked), Number((this.controls.charging as HTMLInputElement).checked)]);
    const tilt = el('select', { id: `tilt-${i}` }, ...Object.keys(ORIENTATIONS).map((o) => el('option', { value: o }, o)));
    tilt.onchange = () => this.input(INPUT.ACCEL, ORIENTATIONS[tilt.value]);
    const moving = check('moving', 'moving', start.moving, () => {
      const on = (this.controls.moving as HTMLInputElement).checked;
      this.input(INPUT.MOTION, on ? [1, Number((this.controls.intensity as HTMLInputElement).value)] : [0, 0]);
    });
    this.status = el('div', { class: 'dev-status' });
    this.other = el('div', { class: 'other', id: `other-${i}` });
    this.track = el('canvas', { class: 'track', width: '300', height: '180', id: `track-${i}` });
    this.gnssStatus = el('div', { class: 'gnss-status', id: `gnss-${i}` });
    this.cloudBox = el('div', { class: 'cloud', id: `cloud-${i}` });
    this.chartBox = el('div', { class: 'chart', id: `chart-${i}` });
    this.root = el(
      'div',
      { class: 'device', id: `device-${i}`, 'data-app': appName },
      el('h3', {}, `${info.name} `, el('small', {}, `${info.profile} · ${appName}`)),
      el('div', { class: 'device-top' }, ring, el('div', {}, buttons, this.status)),
      el(
        'fieldset',
        {},
        el('legend', {}, 'power and sensors'),
        slider('battery', 'battery %', 0, 100, 1, start.battery, (v) => this.input(INPUT.BATTERY, [v])),
        check('external', 'external power', start.external, power),
        check('charging', 'charging', start.charging, power),
        slider('temperature', 'temperature °C', -20, 60, 0.5, start.temperature || 22, (v) => this.input(INPUT.TEMPERATURE, [v])),
      ),
      el('fieldset', {}, el('legend', {}, 'motion'), moving, slider('intensity', 'intensity g', 0.05, 2, 0.05, 0.4, () => {}), el('label', {}, 'tilt ', tilt)),
      el('fieldset', {}, el('legend', {}, 'preview'), this.chartBox),
      el('fieldset', { class: 'location' }, el('legend', {}, 'location'), this.track, this.gnssStatus),
      el('fieldset', {}, el('legend', {}, 'cloud'), this.cloudBox),
      el('fieldset', {}, el('legend', {}, 'other records'), this.other),
    );
    this.drawTrack();
    this.drawCloud();
  }

  /** An input at the world time the world's clock has reached when it gets it. */
  private input(kind: number, values: number[]): void {
    if (!state.running) return;
    this.world.post({ op: 'input', run: state.runId, device: this.info.index, kind, values });
  }

  private press(button: number, holdMs: number): void {
    if (!state.running) return;
    this.world.post({ op: 'input', run: state.runId, device: this.info.index, kind: INPUT.BUTTON, values: [button, 1], releaseAfter: holdMs });
  }

  /**
   * Take a record: only the device's state changes here, nothing is drawn (a fast run gives
   * thousands of records between two frames; flush() draws the latest state once).
   */
  record(r: TraceRecord): void {
    switch (r.ev) {
      case 'led': {
        const k = r.led as number;
        if (k >= this.leds.length) break;
        const rgb = (r.rgb as number[]).map((c) => Math.round(c * (r.brightness as number) * 255));
        this.ledState[k] = { on: r.on === true, rgb: rgb.join(',') };
        this.ledsDirty = true;
        break;
      }
      case 'app':
        this.statusText = `app ${r.state as string}${r.detail ? `: ${mapLocations(String(r.detail), this.info.name)}` : ''}`;
        break;
      case 'reset':
        this.statusText = `reset (${r.cause as string})`;
        break;
      case 'battery':
        this.controlValues.set('battery', String(r.percent));
        break;
      case 'power':
        this.controlValues.set('external', r.external === true);
        this.controlValues.set('charging', r.charging === true);
        break;
      case 'temperature':
        this.controlValues.set('temperature', String(r.celsius));
        break;
      case 'motion':
        this.controlValues.set('moving', r.moving === true);
        break;
      case 'preview':
        this.preview(r.t, r.data);
        break;
      default:
        if (this.location.add(r) || this.cloud.add(r) || r.ev.startsWith('ble-') || DRAWN.has(r.ev)) break;
        this.otherRows.push(`${(r.t / 1000).toFixed(3)} s ${r.ev} ${JSON.stringify(Object.fromEntries(Object.entries(r).filter(([k]) => !['t', 'dev', 'ev'].includes(k))))}`);
        if (this.otherRows.length > 60) this.otherRows.splice(0, this.otherRows.length - 30);
        this.otherDirty = true;
        break;
    }
  }

  /** Numbers in preview data become series: a number, or the numeric fields of an object. */
  private preview(t: number, data: unknown): void {
    const values: Record<string, number> = {};
    if (typeof data === 'number') values.value = data;
    else if (data && typeof data === 'object') for (const [k, v] of Object.entries(data)) if (typeof v === 'number') values[k] = v;
    const keys = Object.keys(values);
    if (keys.length === 0) return;
    for (const k of keys) {
      if (!this.series.includes(k)) {
        this.series.push(k);
        this.data.push(this.data[0].map(() => null as unknown as number));
        this.chart?.destroy();
        this.chart = undefined;
      }
    }
    this.data[0].push(t / 1000);
    this.series.forEach((k, j) => this.data[j + 1].push(k in values ? values[k] : (null as unknown as number)));
    if (this.data[0].length > 2000) for (const s of this.data) s.shift();
    this.chartDirty = true;
  }

  /** Per frame: draw what changed since the last one, from the latest state. */
  flush(): void {
    if (this.ledsDirty) {
      this.ledsDirty = false;
      this.ledState.forEach((s, k) => {
        if (!s) return;
        const led = this.leds[k];
        led.dataset.on = String(s.on);
        led.dataset.rgb = s.on ? s.rgb : '0,0,0';
        led.style.background = s.on ? `rgb(${s.rgb})` : '';
        led.style.boxShadow = s.on ? `0 0 12px rgb(${s.rgb})` : '';
      });
    }
    if (this.statusText !== undefined) {
      this.status.textContent = this.statusText;
      this.statusText = undefined;
    }
    for (const [name, value] of this.controlValues) {
      const c = this.controls[name] as HTMLInputElement;
      if (typeof value === 'boolean') c.checked = value;
      else {
        c.value = value;
        const out = c.nextElementSibling;
        if (out) out.textContent = value;
      }
    }
    this.controlValues.clear();
    if (this.otherDirty) {
      this.otherDirty = false;
      this.other.replaceChildren(...this.otherRows.slice(-30).reverse().map((t) => el('div', {}, t)));
    }
    if (this.location.version !== this.locationDrawn) this.drawTrack();
    if (this.cloud.version !== this.cloudDrawn) this.drawCloud();
    if (!this.chartDirty) return;
    this.chartDirty = false;
    if (!this.chart) {
      const colours = ['#e6194b', '#3cb44b', '#4363d8', '#f58231', '#911eb4', '#46f0f0'];
      this.chart = new uPlot(
        {
          width: 300,
          height: 140,
          scales: { x: { time: false } },
          series: [{ label: 's' }, ...this.series.map((s, j) => ({ label: s, stroke: colours[j % colours.length] }))],
        },
        this.data as uPlot.AlignedData,
        this.chartBox,
      );
    } else {
      this.chart.setData(this.data as uPlot.AlignedData);
    }
  }

  /**
   * The positions the trace gave (GNSS fixes and scripted moves) on a plot in metres, with a
   * scale bar and no map tiles (the page asks no other host for anything).
   */
  private drawTrack(): void {
    this.locationDrawn = this.location.version;
    const loc = this.location;
    const c = this.track;
    const pts = loc.points;
    c.dataset.points = String(pts.length);
    c.dataset.fixes = String(loc.fixes);
    this.gnssStatus.textContent =
      loc.fixes + loc.lost > 0 || loc.receiverOn || loc.onTotalMs > 0
        ? `GNSS ${loc.receiverOn ? (loc.hasFix ? 'on, fix' : 'on, searching') : 'off'} · ${loc.fixes} fix${loc.fixes === 1 ? '' : 'es'}${loc.lost ? `, lost ${loc.lost}×` : ''}${
            pts.length && pts[pts.length - 1].from === 'gnss' ? ` · ${pts[pts.length - 1].sat} sat, hdop ${pts[pts.length - 1].hdop}` : ''
          }`
        : '';
    c.dataset.trackPoints = String(loc.track.length);
    const g = c.getContext('2d');
    if (!g) return;
    g.clearRect(0, 0, c.width, c.height);
    g.fillStyle = '#f7f7f7';
    g.fillRect(0, 0, c.width, c.height);
    if (pts.length === 0 && loc.track.length === 0) {
      g.fillStyle = '#888';
      g.fillText('no position in the trace yet', 10, 20);
      return;
    }
    // One layout for the scripted track (grey, its points marked) and the positions the trace
    // gave (blue; the latest red), so both share the scale.
    const lay = layoutTrack([...loc.track, ...pts], c.width, c.height);
    const track = lay.xy.slice(0, loc.track.length);
    const fixes = lay.xy.slice(loc.track.length);
    g.strokeStyle = '#aaa';
    g.fillStyle = '#888';
    g.beginPath();
    track.forEach(([x, y], k) => (k === 0 ? g.moveTo(x, y) : g.lineTo(x, y)));
    g.stroke();
    for (const [x, y] of track) g.fillRect(x - 2, y - 2, 4, 4);
    g.strokeStyle = '#4363d8';
    g.beginPath();
    fixes.forEach(([x, y], k) => (k === 0 ? g.moveTo(x, y) : g.lineTo(x, y)));
    g.stroke();
    g.fillStyle = '#4363d8';
    for (const [x, y] of fixes) g.fillRect(x - 1.5, y - 1.5, 3, 3);
    g.fillStyle = '#000';
    g.fillRect(10, c.height - 10, lay.barPixels, 2);
    g.fillText(`${lay.barMetres} m`, 10, c.height - 14);
    c.dataset.scale = `${lay.barMetres} m`;
    if (fixes.length > 0) {
      const [lx, ly] = fixes[fixes.length - 1];
      g.fillStyle = '#e6194b';
      g.fillRect(lx - 3, ly - 3, 6, 6);
      const last = pts[pts.length - 1];
      g.fillStyle = '#000';
      g.fillText(`${last.lat.toFixed(6)}, ${last.lon.toFixed(6)}`, 10, 12);
    }
  }

  /** Events queued and stored by the cloud, messages received, the last sync. */
  private drawCloud(): void {
    this.cloudDrawn = this.cloud.version;
    const m = this.cloud;
    const box = this.cloudBox;
    if (m.queued + m.stored + m.syncs + m.messages.length === 0 && m.network === undefined) {
      box.replaceChildren(el('div', { class: 'muted' }, 'no cloud traffic yet'));
      return;
    }
    const summary = el(
      'div',
      { class: 'cloud-summary' },
      `queued ${m.queued} (${m.queuedBytes} B) · stored ${m.stored} · ${m.syncs} sync${m.syncs === 1 ? '' : 's'}${m.lastSync ? ` (last: ${m.lastSync})` : ''}${m.network === undefined ? '' : m.network ? ' · network up' : ' · network down'}`,
    );
    const events = el(
      'table',
      { class: 'cloud-events' },
      el('tr', {}, el('th', {}, 's'), el('th', {}, 'type'), el('th', {}, 'seq'), el('th', {}, 'payload')),
      ...m.events
        .slice(-20)
        .reverse()
        .map((e) => el('tr', { class: 'cloud-event' }, el('td', {}, (e.t / 1000).toFixed(1)), el('td', {}, e.type), el('td', {}, `${e.stream}:${e.seq}`), el('td', {}, e.payload))),
    );
    const messages = el(
      'table',
      { class: 'cloud-messages' },
      el('tr', {}, el('th', {}, 's'), el('th', {}, 'message'), el('th', {}, 'id'), el('th', {}, 'handled')),
      ...m.messages
        .slice(-20)
        .reverse()
        .map((e) => el('tr', { class: 'cloud-message' }, el('td', {}, (e.t / 1000).toFixed(1)), el('td', {}, e.type), el('td', {}, e.id), el('td', {}, e.handler ? 'yes' : 'no handler'))),
    );
    box.replaceChildren(summary, el('div', { class: 'sub' }, 'sent (stored by the cloud)'), events, el('div', { class: 'sub' }, 'received'), messages);
  }
}

// ---- the air: every advertiser of the world, decoded, and who heard it

const air = new AirModel();
let airDrawn = -1;

function drawAir(): void {
  if (air.version === airDrawn) return;
  airDrawn = air.version;
  const box = $('air');
  if (air.advertisers.size === 0) {
    box.replaceChildren(el('div', { class: 'muted' }, 'nothing advertises yet'));
    return;
  }
  const rows = [...air.advertisers.values()].map((a) =>
    el(
      'tr',
      { class: `advertiser ${a.beacon ? 'beacon' : 'device'}`, 'data-key': a.key, 'data-type': String(a.fields.find(([k]) => k === 'type')?.[1] ?? '') },
      el('td', {}, a.beacon ? `${a.source} (scripted)` : `${a.source} set ${String(a.set)}`, a.on ? '' : ' (stopped)'),
      el('td', { class: 'decoded' }, ...a.fields.map(([k, v]) => el('div', { class: 'field', 'data-field': k }, el('b', {}, `${k} `), el('span', { class: 'value' }, v)))),
      el('td', {}, `${a.events} adv, ${a.power} dBm`),
      el('td', {}, ...[...a.heard.values()].map((h) => el('div', {}, `${h.device}: ${h.rssi} dBm ch ${h.ch} (${h.count}×)`))),
    ),
  );
  box.replaceChildren(el('table', { class: 'air-table' }, el('tr', {}, el('th', {}, 'advertiser'), el('th', {}, 'decoded'), el('th', {}, 'sent'), el('th', {}, 'heard by')), ...rows));
}

// ---- trace timeline

/** Records the world gave since the last frame, as text: parsed once, when the frame draws. */
let pendingTrace: string[] = [];
const timeline: TraceRecord[] = [];
const EV_COLOURS: Record<string, string> = { led: '#f58231', print: '#3cb44b', button: '#4363d8', app: '#911eb4', log: '#e6194b', reset: '#e6194b', preview: '#46a0a0', 'ble-adv': '#9a6324', 'ble-rx': '#808000', 'gnss-fix': '#000075', 'cloud-event': '#f032e6' };

function onTrace(json: string): void {
  state.trace += json;
  pendingTrace.push(json);
}

/** Once per frame: the new records reach the panels' state, and the latest are listed. */
function flushTrace(): void {
  if (pendingTrace.length === 0) return;
  const lines = pendingTrace;
  pendingTrace = [];
  const byName = new Map(state.views.map((v) => [v.info.name, v]));
  const shown: TraceRecord[] = [];
  const firstShown = Math.max(0, lines.length - 200);
  for (let k = 0; k < lines.length; k++) {
    const r = JSON.parse(lines[k]) as TraceRecord;
    if (!air.add(r)) byName.get(r.dev ?? '')?.record(r);
    timeline.push(r);
    if (k >= firstShown) shown.push(r);
  }
  if (timeline.length > 5000) timeline.splice(0, timeline.length - 5000);
  const box = $('trace-lines');
  const frag = document.createDocumentFragment();
  for (const r of shown) {
    const div = document.createElement('div');
    div.className = `ev-${r.ev}`;
    div.textContent = `${(r.t / 1000).toFixed(3)} ${r.dev ?? '(air)'} ${r.ev} ${JSON.stringify(Object.fromEntries(Object.entries(r).filter(([k]) => !['t', 'dev', 'ev'].includes(k))))}`;
    frag.appendChild(div);
  }
  box.appendChild(frag);
  while (box.childNodes.length > 300) box.firstChild?.remove();
}

/** The last minute of device time: one row per device, a tick per record, coloured by kind. */
function drawTimeline(): void {
  const c = $<HTMLCanvasElement>('timeline');
  const g = c.getContext('2d');
  if (!g) return;
  const now = state.now;
  const windowMs = 60_000;
  g.clearRect(0, 0, c.width, c.height);
  // A row per device, and one for the scenario's beacons (their records name no device).
  const names = state.views.map((v) => v.info.name);
  if ([...air.advertisers.values()].some((a) => a.beacon)) names.push('air');
  const h = c.height / Math.max(1, names.length);
  names.forEach((name, k) => {
    g.fillStyle = '#333';
    g.fillText(name, 2, k * h + 12);
  });
  for (let j = timeline.length - 1; j >= 0; j--) {
    const r = timeline[j];
    if (r.t < now - windowMs) break;
    const row = r.dev === undefined ? state.views.length : names.indexOf(r.dev);
    if (row < 0 || row >= names.length) continue;
    const x = 40 + ((r.t - (now - windowMs)) / windowMs) * (c.width - 45);
    g.fillStyle = EV_COLOURS[r.ev] ?? '#999';
    g.fillRect(x, row * h + 16, 2, h - 20);
  }
  $('clock').textContent = `${(now / 1000).toFixed(3)} s`;
}

// ---- build and run

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

async function run(): Promise<void> {
  stop();
  state.runClickMs = performance.now();
  // A new run from the click on: nothing may read the last run's end as this one's.
  state.ended = undefined;
  const fresh = state.pkg && (state.pkg.source === undefined || (state.pkg.source === editor.state.doc.toString() && state.pkg.api === state.api && state.pkg.engine === state.engine));
  const own = await scenarioApps();
  if (!own) return;
  const everyDeviceHasOwn = state.scenario !== undefined && state.scenario.lowered.devices.every((d) => d.app !== undefined);
  if (!fresh && !everyDeviceHasOwn && !(await build())) return;
  const pkg = state.pkg;
  const world = await worldFor(state.engine);
  state.world = world;
  state.devicePkgs = own;
  state.stdout = state.stderr = state.trace = '';
  state.ended = undefined;
  state.now = 0;
  timeline.length = 0;
  pendingTrace = [];
  pendingConsole = [];
  air.advertisers.clear();
  air.version++;
  $('console-lines').replaceChildren();
  $('trace-lines').replaceChildren();
  const lowered = state.scenario?.lowered;
  // The packages by device, in the scenario's order (one for all without a scenario).
  const count = lowered ? Math.max(1, lowered.devices.length) : 1;
  const packages = Array.from({ length: count }, (_, k) => (lowered?.devices[k] ? own.get(lowered.devices[k].name) : undefined) ?? pkg!);
  const runId = ++state.runId;
  world.onBatch = onBatch;
  const r = await world.request({ op: 'open', id: world.id(), run: runId, ...(lowered ? { script: lowered.script } : {}), devices: 1, utc: Date.now(), packages: packages.map((p) => p.bytes), speed: speedOf(), until: lowered?.durationMs ?? Infinity });
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
  if (b.run !== state.runId || !state.running) return;
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

function setApi(v: string): void {
  state.api = v;
  $<HTMLSelectElement>('api').value = v;
  forceLinting(editor);
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
