// What the studio's panels show, kept from the trace records as they come: the air (every
// advertiser, scripted beacon or device, with its packet decoded, and who heard it), each
// device's GNSS track and receiver state, and its cloud traffic (events queued, events the cloud
// stored, messages received). Plain data and no DOM, so node tests it and the page only draws it;
// the page feeds it every record, and draws at most once per animation frame from what it holds.
//
// The trace already carries the fields the firmware's parser finds (`type`, `name`,
// `manufData`, `serviceData`, ...; docs/world.md, "The trace"); what is decoded here is the
// content of the beacon formats themselves (an iBeacon's UUID, major and minor, an Eddystone
// URL or telemetry), by their published layouts, so the panel reads as a scanner app would.

export interface TraceRecord {
  t: number;
  dev?: string;
  ev: string;
  [key: string]: unknown;
}

/** One field of a decoded advertisement, as the panel shows it. */
export type Field = [name: string, value: string];

const EDDYSTONE_URL_SCHEMES = ['http://www.', 'https://www.', 'http://', 'https://'];
const EDDYSTONE_URL_CODES = ['.com/', '.org/', '.edu/', '.net/', '.info/', '.biz/', '.gov/', '.com', '.org', '.edu', '.net', '.info', '.biz', '.gov'];

function bytesOf(hex: string): number[] {
  const out: number[] = [];
  for (let i = 0; i + 1 < hex.length; i += 2) out.push(parseInt(hex.slice(i, i + 2), 16));
  return out;
}

function int8(b: number): number {
  return b > 127 ? b - 256 : b;
}

function uuidText(hex: string): string {
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** An Eddystone frame (service data of UUID feaa), by the frame layouts of the Eddystone spec. */
function eddystone(hex: string): Field[] {
  const b = bytesOf(hex);
  switch (b[0]) {
    case 0x00:
      if (b.length < 18) break;
      return [
        ['tx at 0 m', `${int8(b[1])} dBm`],
        ['namespace', hex.slice(4, 24)],
        ['instance', hex.slice(24, 36)],
      ];
    case 0x10: {
      if (b.length < 3) break;
      let url = EDDYSTONE_URL_SCHEMES[b[2]] ?? '';
      for (const c of b.slice(3)) url += c < EDDYSTONE_URL_CODES.length ? EDDYSTONE_URL_CODES[c] : String.fromCharCode(c);
      return [
        ['tx at 0 m', `${int8(b[1])} dBm`],
        ['url', url],
      ];
    }
    case 0x20: {
      if (b.length < 14 || b[1] !== 0) break;
      const u16 = (i: number): number => (b[i] << 8) | b[i + 1];
      const u32 = (i: number): number => ((b[i] << 24) >>> 0) + (b[i + 1] << 16) + (b[i + 2] << 8) + b[i + 3];
      const temp = int8(b[4]) + b[5] / 256;
      return [
        ['battery', `${u16(2)} mV`],
        ['temperature', b[4] === 0x80 && b[5] === 0 ? 'n/a' : `${temp.toFixed(2)} °C`],
        ['adv count', String(u32(6))],
        ['uptime', `${(u32(10) / 10).toFixed(1)} s`],
      ];
    }
    default:
      break;
  }
  return [];
}

/**
 * The fields of a `ble-adv` record for people: the kind of beacon the firmware recognised, then
 * what its format holds, then the AD structures the trace lists.
 */
export function decodeAdvertisement(r: TraceRecord): Field[] {
  const out: Field[] = [];
  if (typeof r.type === 'string') out.push(['type', r.type]);
  if (typeof r.name === 'string') out.push(['name', r.name]);
  const manuf = typeof r.manufData === 'string' ? r.manufData : undefined;
  // iBeacon: company 0x004c (little-endian), type 0x02, length 0x15, UUID, major, minor, power.
  if (manuf && manuf.length >= 50 && manuf.slice(0, 8) === '4c000215') {
    const b = bytesOf(manuf);
    out.push(['uuid', uuidText(manuf.slice(8, 40))], ['major', String((b[20] << 8) | b[21])], ['minor', String((b[22] << 8) | b[23])], ['tx at 1 m', `${int8(b[24])} dBm`]);
  } else if (manuf && manuf.length >= 4) {
    const b = bytesOf(manuf);
    out.push(['company', `0x${((b[1] << 8) | b[0]).toString(16).padStart(4, '0')}`], ['manufData', manuf.slice(4)]);
  }
  const service = r.serviceData && typeof r.serviceData === 'object' ? (r.serviceData as Record<string, string>) : {};
  for (const [uuid, data] of Object.entries(service)) {
    const ed = uuid === 'feaa' ? eddystone(data) : [];
    if (ed.length > 0) out.push(...ed);
    else out.push([`serviceData ${uuid}`, data]);
  }
  if (Array.isArray(r.serviceUUIDs)) out.push(['serviceUUIDs', (r.serviceUUIDs as string[]).join(' ')]);
  if (typeof r.txPower === 'number') out.push(['txPower', `${r.txPower} dBm`]);
  if (typeof r.flags === 'number') out.push(['flags', `0x${r.flags.toString(16).padStart(2, '0')}`]);
  return out;
}

export interface Hearing {
  device: string;
  rssi: number;
  ch: number;
  kind: string;
  count: number;
  last: number;
}

export interface Advertiser {
  /** "beacon <name>" or "<device> set <n>". */
  key: string;
  /** The scripted beacon's name, or the device that advertises. */
  source: string;
  beacon: boolean;
  set?: number;
  power: number;
  data: string;
  fields: Field[];
  events: number;
  first: number;
  last: number;
  /** Whether the set is advertising now (a device's set stops; a beacon never does). */
  on: boolean;
  heard: Map<string, Hearing>;
}

/** Everything in the air of one world: its advertisers, and which devices heard them. */
export class AirModel {
  readonly advertisers = new Map<string, Advertiser>();
  /** Packets received that no advertiser of the trace sent (a `bleCapture`). */
  captures = 0;
  /** Bumped on every change, so the page redraws only when something changed. */
  version = 0;

  /** Take a record; true when it was an air record. */
  add(r: TraceRecord): boolean {
    switch (r.ev) {
      case 'ble-adv': {
        const beacon = typeof r.beacon === 'string';
        const source = beacon ? (r.beacon as string) : (r.dev ?? '');
        const key = beacon ? `beacon ${source}` : `${source} set ${String(r.set)}`;
        let a = this.advertisers.get(key);
        const data = String(r.data ?? '');
        if (!a) {
          a = { key, source, beacon, power: 0, data: '', fields: [], events: 0, first: r.t, last: r.t, on: true, heard: new Map() };
          if (!beacon) a.set = r.set as number;
          this.advertisers.set(key, a);
        }
        if (a.data !== data) a.fields = decodeAdvertisement(r);
        a.data = data;
        a.power = Number(r.power ?? 0);
        a.events++;
        a.last = r.t;
        a.on = true;
        break;
      }
      case 'ble-adv-stop': {
        const a = this.advertisers.get(`${r.dev ?? ''} set ${String(r.set)}`);
        if (a) a.on = false;
        break;
      }
      case 'ble-rx': {
        const from = String(r.from ?? '');
        if (from === 'capture') {
          this.captures++;
          break;
        }
        // Devices are named in `from`; which of their sets sent it is told by the packet.
        const kind = String(r.kind ?? 'adv');
        const a = this.advertisers.get(`beacon ${from}`) ?? [...this.advertisers.values()].find((x) => !x.beacon && x.source === from && (kind !== 'adv' || x.data === r.data)) ?? [...this.advertisers.values()].find((x) => !x.beacon && x.source === from);
        if (!a) break;
        const dev = r.dev ?? '';
        const h = a.heard.get(dev);
        if (h) {
          h.rssi = Number(r.rssi);
          h.ch = Number(r.ch);
          h.kind = kind;
          h.count++;
          h.last = r.t;
        } else a.heard.set(dev, { device: dev, rssi: Number(r.rssi), ch: Number(r.ch), kind, count: 1, last: r.t });
        break;
      }
      case 'ble-capture':
        break;
      default:
        return false;
    }
    this.version++;
    return true;
  }
}

export interface Fix {
  t: number;
  lat: number;
  lon: number;
  /** From the receiver (gnss-fix) or a scripted move. */
  from: 'gnss' | 'move';
  sat?: number;
  hdop?: number;
}

/** A point of a scripted GNSS track: where the device is at world time t. */
export interface TrackPoint {
  t: number;
  lat: number;
  lon: number;
}

/**
 * The GNSS tracks of a world script (`gnss <device> point <ms> <lat> <long> <alt>` lines, as the
 * scenario's `gnss.track` is lowered; src/world/world_script.h), by device index: the path each
 * device follows, which the trace does not repeat (it gives the fixes).
 */
export function scriptTracks(script: string | undefined): Map<number, TrackPoint[]> {
  const out = new Map<number, TrackPoint[]>();
  for (const line of (script ?? '').split('\n')) {
    const m = /^gnss (\d+) point (\d+) (-?[\d.]+) (-?[\d.]+)/.exec(line);
    if (!m) continue;
    const dev = Number(m[1]);
    if (!out.has(dev)) out.set(dev, []);
    out.get(dev)!.push({ t: Number(m[2]), lat: Number(m[3]), lon: Number(m[4]) });
  }
  return out;
}

/** A device's positions (GNSS fixes and scripted moves) and its receiver's state. */
export class LocationModel {
  /** The scripted track the device follows (empty without one). */
  track: TrackPoint[] = [];
  readonly points: Fix[] = [];
  receiverOn = false;
  hasFix = false;
  fixes = 0;
  lost = 0;
  onTotalMs = 0;
  version = 0;

  add(r: TraceRecord): boolean {
    switch (r.ev) {
      case 'gnss':
        this.receiverOn = r.on === true;
        if (!this.receiverOn) this.hasFix = false;
        if (typeof r.onTotal === 'number') this.onTotalMs = r.onTotal;
        break;
      case 'gnss-fix':
        this.fixes++;
        this.hasFix = true;
        this.points.push({ t: r.t, lat: Number(r.lat), lon: Number(r.long), from: 'gnss', sat: Number(r.sat), hdop: Number(r.hdop) });
        break;
      case 'gnss-lost':
        this.lost++;
        this.hasFix = false;
        break;
      default:
        // `move` and any other record with a position.
        if (typeof r.lat === 'number' && (typeof r.long === 'number' || typeof r.lon === 'number')) {
          this.points.push({ t: r.t, lat: r.lat, lon: (r.long ?? r.lon) as number, from: 'move' });
          break;
        }
        return false;
    }
    this.version++;
    return true;
  }
}

/** Where a point goes on a plot of w x h pixels (metres east and north of the first point). */
export interface TrackLayout {
  /** Pixels per metre. */
  scale: number;
  /** A round length for the scale bar, in metres, and its length in pixels. */
  barMetres: number;
  barPixels: number;
  xy: [number, number][];
}

/**
 * The plot of a track without map tiles: an equirectangular projection around the first point
 * (exact to well under a percent over the few kilometres a device walks), fitted to the box
 * with a margin, and a scale bar of a round number of metres.
 */
export function layoutTrack(points: readonly { lat: number; lon: number }[], w: number, h: number, margin = 15): TrackLayout {
  if (points.length === 0) return { scale: 1, barMetres: 0, barPixels: 0, xy: [] };
  const lat0 = points[0].lat;
  const lon0 = points[0].lon;
  const mPerLat = 111_320;
  const mPerLon = 111_320 * Math.cos((lat0 * Math.PI) / 180);
  let minX = Infinity;
  let maxX = -Infinity;
  let minY = Infinity;
  let maxY = -Infinity;
  const m = points.map((p) => {
    const x = (p.lon - lon0) * mPerLon;
    const y = (p.lat - lat0) * mPerLat;
    minX = Math.min(minX, x);
    maxX = Math.max(maxX, x);
    minY = Math.min(minY, y);
    maxY = Math.max(maxY, y);
    return [x, y];
  });
  const span = Math.max(10, maxX - minX, maxY - minY);
  const scale = (Math.min(w, h) - 2 * margin) / span;
  const cx = (maxX + minX) / 2;
  const cy = (maxY + minY) / 2;
  const xy = m.map(([x, y]) => [w / 2 + (x - cx) * scale, h / 2 - (y - cy) * scale] as [number, number]);
  // The largest 1, 2 or 5 times a power of ten that fits in half the span.
  const pow = 10 ** Math.floor(Math.log10(span / 2));
  const barMetres = [5, 2, 1].map((k) => k * pow).find((b) => b <= span / 2) ?? pow;
  return { scale, barMetres, barPixels: barMetres * scale, xy };
}

export interface CloudEvent {
  t: number;
  stream: number;
  seq: number;
  type: string;
  payload: string;
}

export interface CloudMessage {
  t: number;
  id: string;
  type: string;
  handler: boolean;
}

/**
 * A package deployed to a device through the loopback cloud, from its trace records
 * (docs/world.md): the cloud's offers, what the device fetched, its verdict and the report the
 * cloud recorded.
 */
export interface Deployment {
  /** The first 8 bytes of the package's SHA-256, hex. */
  package: string;
  size: number;
  /** Offers (one per sync start until the device runs it, refused it or rolled it back). */
  offers: number;
  firstOffer: number;
  bytesFetched: number;
  fetches: number;
  /** The device's verdict (its `cloud-deploy` record). */
  outcome?: string;
  reason?: string;
  /** The report the loopback cloud recorded (`cloud-deploy-report`). */
  reported?: { t: number; outcome: string; reason?: string };
}

/** A deployment's state in a few words: what the panel shows. */
export function deploymentState(d: Deployment): string {
  const verdict = d.reported ?? (d.outcome !== undefined ? { outcome: d.outcome, reason: d.reason } : undefined);
  if (verdict) return `${verdict.outcome}${verdict.reason ? `: ${verdict.reason}` : ''}${d.reported ? ' (reported)' : ' (not reported yet)'}`;
  if (d.bytesFetched > 0) return `fetching: ${d.bytesFetched} of ${d.size} bytes`;
  return `offered ${d.offers}×`;
}

/** A device's cloud traffic: what it queued, what the cloud stored, what it received. */
export class CloudModel {
  queued = 0;
  queuedBytes = 0;
  syncs = 0;
  syncErrors = 0;
  lastSync = '';
  network: boolean | undefined;
  readonly events: CloudEvent[] = [];
  readonly messages: CloudMessage[] = [];
  /** How many events the cloud stored in all (the list keeps the latest). */
  stored = 0;
  /** The packages deployed to the device through the loopback cloud, by package (hash). */
  readonly deployments = new Map<string, Deployment>();
  version = 0;
  private static readonly KEEP = 500;

  add(r: TraceRecord): boolean {
    switch (r.ev) {
      case 'cloud':
        this.queued++;
        this.queuedBytes += Number(r.bytes ?? 0);
        break;
      case 'cloud-sync':
        if (r.phase === 'end') {
          this.syncs++;
          if (typeof r.error === 'string') {
            this.syncErrors++;
            this.lastSync = `failed: ${r.error}`;
          } else this.lastSync = `${String(r.events ?? 0)} events, ${String(r.messages ?? 0)} messages`;
        }
        break;
      case 'cloud-event': {
        this.stored++;
        const known = new Set(['t', 'dev', 'ev', 'stream', 'seq', 'type', 'ts', 'volatile', 'variable']);
        const payload = 'payload' in r ? r.payload : Object.fromEntries(Object.entries(r).filter(([k]) => !known.has(k)));
        this.events.push({ t: r.t, stream: Number(r.stream), seq: Number(r.seq), type: String(r.type ?? ''), payload: JSON.stringify(payload) ?? '' });
        if (this.events.length > CloudModel.KEEP) this.events.splice(0, this.events.length - CloudModel.KEEP);
        break;
      }
      case 'cloud-message':
        this.messages.push({ t: r.t, id: String(r.id ?? ''), type: String(r.type ?? ''), handler: r.handler === true });
        if (this.messages.length > CloudModel.KEEP) this.messages.splice(0, this.messages.length - CloudModel.KEEP);
        break;
      case 'cloud-network':
        this.network = r.up === true;
        break;
      case 'cloud-deploy-offer':
      case 'cloud-deploy-fetch':
      case 'cloud-deploy':
      case 'cloud-deploy-report':
        this.addDeploy(r);
        break;
      default:
        return false;
    }
    this.version++;
    return true;
  }

  private addDeploy(r: TraceRecord): void {
    const key = String(r.package ?? '');
    let d = this.deployments.get(key);
    if (!d) {
      d = { package: key, size: 0, offers: 0, firstOffer: r.t, bytesFetched: 0, fetches: 0 };
      this.deployments.set(key, d);
    }
    const reason = typeof r.reason === 'string' && r.reason !== '' ? r.reason : undefined;
    switch (r.ev) {
      case 'cloud-deploy-offer':
        d.offers++;
        d.size = Number(r.size ?? d.size);
        break;
      case 'cloud-deploy-fetch':
        d.fetches++;
        d.bytesFetched += Number(r.bytes ?? 0);
        break;
      case 'cloud-deploy':
        d.outcome = String(r.outcome ?? '');
        d.reason = reason;
        break;
      default:
        d.reported = { t: r.t, outcome: String(r.outcome ?? ''), ...(reason ? { reason } : {}) };
    }
  }
}
