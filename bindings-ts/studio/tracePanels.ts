// The air panel (every advertiser of the world, decoded, and who heard it) and the trace panel
// (the latest records, and the last minute of device time as a timeline).
import { AirModel, TraceRecord } from '../src/studio/records';
import { $, el, state } from './page';

export const air = new AirModel();
let airDrawn = -1;

export function drawAir(): void {
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

/** Records the world gave since the last frame, as text: parsed once, when the frame draws. */
let pendingTrace: string[] = [];
const timeline: TraceRecord[] = [];
const EV_COLOURS: Record<string, string> = { led: '#f58231', print: '#3cb44b', button: '#4363d8', app: '#911eb4', log: '#e6194b', reset: '#e6194b', preview: '#46a0a0', 'ble-adv': '#9a6324', 'ble-rx': '#808000', 'gnss-fix': '#000075', 'cloud-event': '#f032e6' };

export function onTrace(json: string): void {
  state.trace += json;
  pendingTrace.push(json);
}

/** Once per frame: the new records reach the panels' state, and the latest are listed. */
export function flushTrace(): void {
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
export function drawTimeline(): void {
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

/** A new run: the last one's records and advertisers are forgotten. */
export function clearTrace(): void {
  timeline.length = 0;
  pendingTrace = [];
  air.advertisers.clear();
  air.version++;
  $('trace-lines').replaceChildren();
}
