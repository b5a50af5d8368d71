// The device panel, one per device of the world: the LED ring and buttons, the energy panel
// (energyView.ts), power, temperature and motion controls, preview charts, the GNSS track, the
// cloud's events and messages, and the trace records of the device that no other panel draws.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { CloudModel, deploymentState, layoutTrack, LocationModel, TraceRecord } from '../src/studio/records';
import { DeviceInfo, INPUT } from '../src/studio/world';
import { mapLocations } from './consoleView';
import { EnergyView } from './energyView';
import { ENERGY_PERIOD_MS } from './energyWorld';
import { el, state } from './page';
import type { SimWorker } from './simWorker';
import type { DeviceStart } from './worker';

const ORIENTATIONS: Record<string, number[]> = {
  'flat-top': [0, 0, 1],
  'flat-bottom': [0, 0, -1],
  'vertical-ble': [1, 0, 0],
  'vertical-gnss': [-1, 0, 0],
  'vertical-cloud': [0, 1, 0],
};

/** Record kinds the device panel draws itself; anything else is listed under "air, location, cloud". */
const DRAWN = new Set(['boot', 'app', 'print', 'log', 'led', 'button', 'battery', 'current', 'power', 'temperature', 'motion', 'motion-detected', 'accel', 'gyro', 'imu-event', 'preview', 'reset', 'time-sync', 'imu-fault', 'fault']);

export class DeviceView {
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
  readonly energyView: EnergyView;

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
    this.energyView = new EnergyView(i, start.battery, start.capacityMah, ENERGY_PERIOD_MS);
    this.root = el(
      'div',
      { class: 'device', id: `device-${i}`, 'data-app': appName },
      el('h3', {}, `${info.name} `, el('small', {}, `${info.profile} · ${appName}`)),
      el('div', { class: 'device-top' }, ring, el('div', {}, buttons, this.status)),
      this.energyView.root,
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
        this.energyView.model.setPercent(r.percent as number, r.t);
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

  /** An energy record of the device (they come beside the trace, not in it: worker.ts). */
  energy(r: TraceRecord): void {
    this.energyView.add(r);
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
    this.energyView.flush();
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
    if (m.queued + m.stored + m.syncs + m.messages.length + m.deployments.size === 0 && m.network === undefined) {
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
    // The packages deployed to the device through the loopback cloud: offered, fetched, its verdict.
    const deployed = [...m.deployments.values()].map((d) =>
      el(
        'tr',
        { class: 'cloud-deployment', 'data-package': d.package, 'data-outcome': d.reported?.outcome ?? d.outcome ?? '' },
        el('td', {}, (d.firstOffer / 1000).toFixed(1)),
        el('td', {}, d.package),
        el('td', {}, `${d.offers}×`),
        el('td', {}, `${d.bytesFetched} of ${d.size} B`),
        el('td', { class: 'state' }, deploymentState(d)),
      ),
    );
    const deployments = deployed.length === 0 ? [] : [el('div', { class: 'sub' }, 'deployed'), el('table', { class: 'cloud-deployments' }, el('tr', {}, el('th', {}, 's'), el('th', {}, 'package'), el('th', {}, 'offered'), el('th', {}, 'fetched'), el('th', {}, 'state')), ...deployed)];
    box.replaceChildren(summary, el('div', { class: 'sub' }, 'sent (stored by the cloud)'), events, el('div', { class: 'sub' }, 'received'), messages, ...deployments);
  }
}
