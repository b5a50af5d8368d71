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
import { DeviceInfo, INPUT, OutputLine, Pacer, SimFactory, Speed, WasmWorld, WorldEnd } from '../src/studio/world';
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
  devices: { name: string; app?: string }[];
}

interface TraceRecord {
  t: number;
  dev: string;
  ev: string;
  [key: string]: unknown;
}

const $ = <T extends HTMLElement = HTMLElement>(id: string): T => document.getElementById(id) as T;

async function post<T>(url: string, body: unknown): Promise<T> {
  const r = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  return (await r.json()) as T;
}

// ---- state

const state = {
  api: '0.2.6',
  apiVersions: [] as string[],
  engine: 'duktape',
  name: 'app.ts',
  scenario: undefined as { name: string; text: string; lowered: Lowered } | undefined,
  /** The package Run uses: built from the editor's text, or dropped onto the page. */
  pkg: undefined as { bytes: Uint8Array; name: string; map?: SourceMapV3; source?: string; api: string; engine: string } | undefined,
  world: undefined as WasmWorld | undefined,
  pacer: undefined as Pacer | undefined,
  running: false,
  views: [] as DeviceView[],
  stdout: '',
  stderr: '',
  trace: '',
  ended: undefined as string | undefined,
  frames: [] as number[],
  /** performance.now() when the page became usable (editor, examples and simulator loaded). */
  readyMs: 0,
};

const worlds = new Map<string, Promise<WasmWorld>>();

function loadScript(src: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const s = document.createElement('script');
    s.src = src;
    s.onload = () => resolve();
    s.onerror = () => reject(new Error(`cannot load ${src}`));
    document.head.appendChild(s);
  });
}

/** One module instance per engine, made once. */
function worldFor(engine: string): Promise<WasmWorld> {
  let w = worlds.get(engine);
  if (!w) {
    w = (async () => {
      await loadScript(`wasm/beacon-sim-${engine}.js`);
      const factory = (window as unknown as Record<string, SimFactory>)[`createBeaconSim_${engine}`];
      const bytes = await (await fetch(`wasm/beacon-sim-${engine}.wasm`)).arrayBuffer();
      return WasmWorld.create(factory, bytes);
    })();
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
  const box = $('console');
  const frag = document.createDocumentFragment();
  for (const l of pendingConsole) {
    const span = document.createElement('span');
    span.className = l.cls;
    span.textContent = l.text;
    frag.appendChild(span);
  }
  pendingConsole = [];
  box.appendChild(frag);
  while (box.childNodes.length > 2000) box.firstChild?.remove();
  box.scrollTop = box.scrollHeight;
}

/** Error locations in the compiled script shown in the TypeScript source (as rewriteLocations). */
function mapLocations(text: string): string {
  const pkg = state.pkg;
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
    const text = mapLocations(line.text);
    state.stderr += text;
    consoleLine(text, `err ${line.level ?? ''}`);
  }
}

// ---- devices

const ORIENTATIONS: Record<string, [number, number, number]> = {
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
  private readonly status: HTMLElement;
  private readonly other: HTMLElement;
  private readonly track: HTMLCanvasElement;
  private readonly points: { lat: number; lon: number }[] = [];
  private chart: uPlot | undefined;
  private readonly chartBox: HTMLElement;
  private series: string[] = [];
  private data: number[][] = [[]];
  private chartDirty = false;
  private readonly controls: Record<string, HTMLInputElement | HTMLSelectElement> = {};

  constructor(
    readonly info: DeviceInfo,
    private readonly world: WasmWorld,
  ) {
    const i = info.index;
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
    const moving = check('moving', 'moving', world.value(i, 'moving') !== 0, () => {
      const on = (this.controls.moving as HTMLInputElement).checked;
      this.input(INPUT.MOTION, on ? [1, Number((this.controls.intensity as HTMLInputElement).value)] : [0, 0]);
    });
    this.status = el('div', { class: 'dev-status' });
    this.other = el('div', { class: 'other', id: `other-${i}` });
    this.track = el('canvas', { class: 'track', width: '220', height: '140', id: `track-${i}` });
    this.chartBox = el('div', { class: 'chart', id: `chart-${i}` });
    this.root = el(
      'div',
      { class: 'device', id: `device-${i}` },
      el('h3', {}, `${info.name} `, el('small', {}, info.profile)),
      el('div', { class: 'device-top' }, ring, el('div', {}, buttons, this.status)),
      el(
        'fieldset',
        {},
        el('legend', {}, 'power and sensors'),
        slider('battery', 'battery %', 0, 100, 1, world.value(i, 'battery'), (v) => this.input(INPUT.BATTERY, [v])),
        check('external', 'external power', world.value(i, 'external') !== 0, power),
        check('charging', 'charging', world.value(i, 'charging') !== 0, power),
        slider('temperature', 'temperature °C', -20, 60, 0.5, world.value(i, 'temperature') || 22, (v) => this.input(INPUT.TEMPERATURE, [v])),
      ),
      el('fieldset', {}, el('legend', {}, 'motion'), moving, slider('intensity', 'intensity g', 0.05, 2, 0.05, 0.4, () => {}), el('label', {}, 'tilt ', tilt)),
      el('fieldset', {}, el('legend', {}, 'preview'), this.chartBox),
      el('fieldset', {}, el('legend', {}, 'location'), this.track),
      el('fieldset', {}, el('legend', {}, 'air, location, cloud'), this.other),
    );
    this.drawTrack();
  }

  private input(kind: number, values: readonly number[]): void {
    const pacer = state.pacer;
    if (!state.running || !pacer) return;
    this.world.input(this.info.index, kind, pacer.present(), values);
  }

  private press(button: number, holdMs: number): void {
    const pacer = state.pacer;
    if (!state.running || !pacer) return;
    const at = pacer.present();
    this.world.input(this.info.index, INPUT.BUTTON, at, [button, 1]);
    this.world.input(this.info.index, INPUT.BUTTON, at + holdMs, [button, 0]);
  }

  record(r: TraceRecord): void {
    switch (r.ev) {
      case 'led': {
        const led = this.leds[r.led as number];
        if (!led) break;
        const rgb = (r.rgb as number[]).map((c) => Math.round(c * (r.brightness as number) * 255));
        const on = r.on === true;
        led.dataset.on = String(on);
        led.dataset.rgb = on ? rgb.join(',') : '0,0,0';
        led.style.background = on ? `rgb(${rgb.join(',')})` : '';
        led.style.boxShadow = on ? `0 0 12px rgb(${rgb.join(',')})` : '';
        break;
      }
      case 'app':
        this.status.textContent = `app ${r.state as string}${r.detail ? `: ${mapLocations(String(r.detail))}` : ''}`;
        break;
      case 'reset':
        this.status.textContent = `reset (${r.cause as string})`;
        break;
      case 'battery':
        this.setControl('battery', String(r.percent));
        break;
      case 'power':
        (this.controls.external as HTMLInputElement).checked = r.external === true;
        (this.controls.charging as HTMLInputElement).checked = r.charging === true;
        break;
      case 'temperature':
        this.setControl('temperature', String(r.celsius));
        break;
      case 'motion':
        (this.controls.moving as HTMLInputElement).checked = r.moving === true;
        break;
      case 'preview':
        this.preview(r.t, r.data);
        break;
      default:
        break;
    }
    if (typeof r.lat === 'number' && (typeof r.long === 'number' || typeof r.lon === 'number')) {
      this.points.push({ lat: r.lat, lon: (r.long ?? r.lon) as number });
      this.drawTrack();
    }
    if (!DRAWN.has(r.ev)) {
      const row = el('div', {}, `${(r.t / 1000).toFixed(3)} s ${r.ev} ${JSON.stringify(Object.fromEntries(Object.entries(r).filter(([k]) => !['t', 'dev', 'ev'].includes(k))))}`);
      this.other.prepend(row);
      while (this.other.childNodes.length > 30) this.other.lastChild?.remove();
    }
  }

  private setControl(name: string, value: string): void {
    const c = this.controls[name] as HTMLInputElement;
    c.value = value;
    const out = c.nextElementSibling;
    if (out) out.textContent = value;
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

  /** Per frame: redraw what changed. */
  flush(): void {
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

  /** The positions the trace gave, with a scale bar in metres (no map tiles: no network). */
  private drawTrack(): void {
    const c = this.track;
    const g = c.getContext('2d');
    if (!g) return;
    g.clearRect(0, 0, c.width, c.height);
    g.fillStyle = '#f7f7f7';
    g.fillRect(0, 0, c.width, c.height);
    if (this.points.length === 0) {
      g.fillStyle = '#888';
      g.fillText('no position in the trace yet', 10, 20);
      return;
    }
    const lat0 = this.points[0].lat;
    const mPerLat = 111320;
    const mPerLon = 111320 * Math.cos((lat0 * Math.PI) / 180);
    const xy = this.points.map((p) => ({ x: (p.lon - this.points[0].lon) * mPerLon, y: (p.lat - lat0) * mPerLat }));
    const xs = xy.map((p) => p.x);
    const ys = xy.map((p) => p.y);
    const span = Math.max(10, Math.max(...xs) - Math.min(...xs), Math.max(...ys) - Math.min(...ys));
    const scale = (Math.min(c.width, c.height) - 30) / span;
    const cx = (Math.max(...xs) + Math.min(...xs)) / 2;
    const cy = (Math.max(...ys) + Math.min(...ys)) / 2;
    const px = (p: { x: number; y: number }): [number, number] => [c.width / 2 + (p.x - cx) * scale, c.height / 2 - (p.y - cy) * scale];
    g.strokeStyle = '#4363d8';
    g.beginPath();
    xy.forEach((p, k) => (k === 0 ? g.moveTo(...px(p)) : g.lineTo(...px(p))));
    g.stroke();
    g.fillStyle = '#e6194b';
    const [lx, ly] = px(xy[xy.length - 1]);
    g.fillRect(lx - 3, ly - 3, 6, 6);
    const bar = 10 ** Math.floor(Math.log10(span / 2));
    g.fillStyle = '#000';
    g.fillRect(10, c.height - 10, bar * scale, 2);
    g.fillText(`${bar} m`, 10, c.height - 14);
    const last = this.points[this.points.length - 1];
    g.fillText(`${last.lat.toFixed(6)}, ${last.lon.toFixed(6)}`, 10, 12);
  }
}

// ---- trace timeline

let pendingTrace: TraceRecord[] = [];
const timeline: TraceRecord[] = [];
const EV_COLOURS: Record<string, string> = { led: '#f58231', print: '#3cb44b', button: '#4363d8', app: '#911eb4', log: '#e6194b', reset: '#e6194b', preview: '#46a0a0' };

function onTrace(json: string): void {
  state.trace += json;
  const r = JSON.parse(json) as TraceRecord;
  pendingTrace.push(r);
  const view = state.views.find((v) => v.info.name === r.dev);
  view?.record(r);
}

function flushTrace(): void {
  if (pendingTrace.length === 0) return;
  const box = $('trace');
  const frag = document.createDocumentFragment();
  for (const r of pendingTrace.slice(-200)) {
    const div = document.createElement('div');
    div.className = `ev-${r.ev}`;
    div.textContent = `${(r.t / 1000).toFixed(3)} ${r.dev} ${r.ev} ${JSON.stringify(Object.fromEntries(Object.entries(r).filter(([k]) => !['t', 'dev', 'ev'].includes(k))))}`;
    frag.appendChild(div);
  }
  timeline.push(...pendingTrace);
  if (timeline.length > 5000) timeline.splice(0, timeline.length - 5000);
  pendingTrace = [];
  box.appendChild(frag);
  while (box.childNodes.length > 300) box.firstChild?.remove();
  box.scrollTop = box.scrollHeight;
}

/** The last minute of device time: one row per device, a tick per record, coloured by kind. */
function drawTimeline(): void {
  const c = $<HTMLCanvasElement>('timeline');
  const g = c.getContext('2d');
  if (!g) return;
  const now = state.world?.now() ?? 0;
  const windowMs = 60_000;
  g.clearRect(0, 0, c.width, c.height);
  const rows = Math.max(1, state.views.length);
  const h = c.height / rows;
  state.views.forEach((v, k) => {
    g.fillStyle = '#333';
    g.fillText(v.info.name, 2, k * h + 12);
  });
  for (let j = timeline.length - 1; j >= 0; j--) {
    const r = timeline[j];
    if (r.t < now - windowMs) break;
    const row = state.views.findIndex((v) => v.info.name === r.dev);
    const x = 40 + ((r.t - (now - windowMs)) / windowMs) * (c.width - 45);
    g.fillStyle = EV_COLOURS[r.ev] ?? '#999';
    g.fillRect(x, Math.max(0, row) * h + 16, 2, h - 20);
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
  state.ended = reason;
  flushAll();
  consoleLine(`[beacon info] run ended (${reason}) after ${((state.world?.now() ?? 0) / 1000).toFixed(3)} s of device time\n`, 'info');
  flushConsole();
  setStatus(`ended: ${reason}`);
  $<HTMLButtonElement>('stop').disabled = true;
}

async function run(): Promise<void> {
  stop();
  const fresh = state.pkg && (state.pkg.source === undefined || (state.pkg.source === editor.state.doc.toString() && state.pkg.api === state.api && state.pkg.engine === state.engine));
  if (!fresh && !(await build())) return;
  const pkg = state.pkg!;
  const world = await worldFor(state.engine);
  state.world = world;
  state.stdout = state.stderr = state.trace = '';
  state.ended = undefined;
  timeline.length = 0;
  $('console').replaceChildren();
  $('trace').replaceChildren();
  world.listen({ output: onOutput, trace: onTrace });
  let devices: DeviceInfo[];
  try {
    devices = world.open(state.scenario?.lowered.script, 1, Date.now());
  } catch (err) {
    consoleLine(`beacon-sim: ${state.scenario?.name ?? 'world'}: ${(err as Error).message}\n`, 'err error');
    flushConsole();
    return;
  }
  for (const d of devices) world.setPackage(d.index, pkg.bytes);
  state.views = devices.map((d) => new DeviceView(d, world));
  $('devices').replaceChildren(...state.views.map((v) => v.root));
  const failed = world.start();
  for (const f of failed) onOutput({ stream: 'stderr', device: '', text: `beacon-sim: ${pkg.name}: ${f.reason}\n` });
  const pacer = new Pacer(world, () => performance.now());
  pacer.until = state.scenario?.lowered.durationMs ?? Infinity;
  pacer.setSpeed(speedOf());
  state.pacer = pacer;
  state.running = true;
  $<HTMLButtonElement>('stop').disabled = false;
  $<HTMLButtonElement>('restart').disabled = false;
  setStatus('running');
  requestAnimationFrame(frame);
}

function speedOf(): Speed {
  const v = $<HTMLSelectElement>('speed').value;
  return v === 'max' ? 'max' : Number(v);
}

function flushAll(): void {
  flushTrace();
  flushConsole();
  for (const v of state.views) v.flush();
  drawTimeline();
}

function frame(now: number): void {
  if (!state.running || !state.pacer) return;
  // As fast as possible: most of each frame goes to the world (about 15 frames a second while
  // fast-forwarding, enough to watch and to click Stop); otherwise a frame's worth of time.
  const end = state.pacer.tick(state.pacer.speed === 'max' ? 50 : 12);
  flushAll();
  state.frames.push(now);
  while (state.frames.length && state.frames[0] < now - 1000) state.frames.shift();
  if (state.pacer.ended !== undefined) {
    // The words of beacon-sim's last line.
    stop(end === WorldEnd.Stopped ? 'the app stopped' : end === WorldEnd.Idle ? 'nothing more can happen' : 'the time given ran out');
    return;
  }
  requestAnimationFrame(frame);
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
function openPackage(name: string, bytes: Uint8Array): void {
  const world = state.world;
  void (async () => {
    const w = world ?? (await worldFor(state.engine));
    const why = w.check(bytes);
    if (why !== undefined) {
      const text = `beacon-sim: ${name}: ${why}\n`;
      state.stderr += text;
      consoleLine(text, 'err error refused');
      flushConsole();
      setStatus(`${name} refused`);
      return;
    }
    state.pkg = { bytes, name, api: state.api, engine: state.engine };
    if (state.running) {
      for (const v of state.views) {
        const err = w.install(v.info.index, bytes);
        if (err) consoleLine(`beacon-sim: ${name}: ${err}\n`, 'err error');
      }
      flushConsole();
    }
    setStatus(`${name} loaded`);
  })();
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
  $<HTMLSelectElement>('speed').onchange = () => state.pacer?.setSpeed(speedOf());
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
  await worldFor(info.engines[0] ?? 'duktape');
  setStatus('ready');
  state.readyMs = performance.now();
  document.body.dataset.ready = 'true';
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
    state.pacer?.setSpeed(speedOf());
  },
};

start().catch((err: unknown) => {
  setStatus(`failed to start: ${(err as Error).message}`);
});
