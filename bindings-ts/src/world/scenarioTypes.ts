// The world scenario's types (bindings-ts/schema/world.schema.json, docs/world.md), its error, and
// what both its checks (scenario.ts) and its lowering to the world script (scenarioLower.ts) read:
// the profiles' hardware, intervals, UTC times, positions and advertising data.
export type Interval = number | string;
export type Vector = [number, number, number];
export type Orientation = 'flat-top' | 'flat-bottom' | 'vertical-ble' | 'vertical-gnss' | 'vertical-cloud';
export type Profile = 'ble-beacon' | 'lte-beacon' | 'ai-beacon';
export type Position = { lat: number; long: number; alt?: number } | { x: number; y: number; z?: number };

export type TrackPoint = {
  at: Interval;
  lat?: number;
  long?: number;
  alt?: number;
  x?: number;
  y?: number;
  z?: number;
  speed?: number;
  head?: number;
};

export interface ScenarioGnss {
  track?: TrackPoint[];
  gpx?: string;
  gpxOffset?: Interval;
  ttff?: { cold?: Interval; warm?: Interval; hot?: Interval };
  outages?: { from: Interval; to: Interval }[];
  satellites?: number;
  hdop?: number;
  sky?: { at: Interval; satellites?: number; hdop?: number }[];
  noise?: number;
  seed?: number;
}

export interface ScenarioCell {
  name?: string;
  signal?: number;
  rssi?: number;
  rsrp?: number;
  rsrq?: number;
  mcc?: number;
  mnc?: number;
  lac?: number;
  cell?: number;
  tech?: string;
  band?: string;
}

export interface ScenarioModem {
  operators?: { name: string; type?: string; status?: 'curr' | 'avail' | 'forb' }[];
  status?: ScenarioCell | null;
  cells?: ScenarioCell[];
  sim?: { iccid?: string; imei?: string; imsi?: string } | null;
  scan?: { operators?: Interval; status?: Interval; cells?: Interval; info?: Interval };
}

export interface ScenarioDevice {
  name?: string;
  profile?: Profile;
  app?: string;
  heap?: number;
  imu?: boolean;
  timeSynced?: boolean;
  battery?: { percent?: number; current?: number; external?: boolean; charging?: boolean };
  temperature?: number;
  orientation?: Orientation;
  accel?: Vector;
  position?: Position;
  gnss?: ScenarioGnss;
  modem?: ScenarioModem;
  /** When the device is switched on (world time; default 0): off until then. */
  start?: Interval;
}

/** A fleet: `count` devices alike but for their names, places and boot times (scenarioGroups.ts). */
export interface ScenarioGroup extends Omit<ScenarioDevice, 'name' | 'app' | 'start'> {
  /** Prefix of the devices' names: tag -> tag-0, tag-1, ... */
  name?: string;
  count: number;
  app?: string;
  /** Apps spread over the group in turn (round robin: device k runs apps[k % apps.length]). */
  apps?: string[];
  /** Positions drawn uniformly in this rectangle: x, y (its south-west corner) and its size, m. */
  area?: { x?: number; y?: number; width: number; height: number };
  /** Positions on a grid from x, y eastwards, `columns` a row (default: a square), rows northwards. */
  grid?: { x?: number; y?: number; spacing: number; columns?: number };
  /** Boot times: drawn uniformly in [at, at + spread) (default spread 1 s). */
  start?: { at?: Interval; spread?: Interval };
  seed?: number;
}

/** An advertising packet by its fields (bytes as hex), or an iBeacon. */
export interface ScenarioPacket {
  flags?: number;
  txPower?: number;
  name?: string;
  manufData?: string;
  serviceData?: { [uuid: string]: string };
  serviceUUIDs?: string[];
  iBeacon?: { uuid: string; major: number; minor: number; measuredPower?: number };
}

/** A foreign beacon on the air (docs/world.md, The air). */
export interface ScenarioBeacon {
  name?: string;
  position: Position;
  packet?: ScenarioPacket;
  raw?: string;
  interval?: Interval;
  power?: number;
  addr?: string;
  scanResponse?: boolean;
  connectable?: boolean;
}

export interface ScenarioEvent {
  at: Interval;
  device?: string;
  press?: { button?: 'main' | 'side'; hold: Interval };
  button?: { button?: 'main' | 'side'; down: boolean };
  motion?: boolean | { moving: boolean; intensity?: number };
  accel?: Vector;
  gyro?: Vector;
  orientation?: Orientation;
  imuEvent?: {
    type: string;
    axis?: 'x' | 'y' | 'z';
    direction?: 1 | -1;
    count?: number;
    duration?: number;
    value?: number;
    intensity?: number;
  };
  battery?: number;
  current?: number;
  power?: { external?: boolean; charging?: boolean };
  temperature?: number;
  timeSync?: boolean;
  imuFault?: boolean;
  fault?: 'hang' | 'crash';
  move?: Position;
  powerCut?: true | { afterFlashOps?: number };
  storageFault?: 'error' | 'timeout';
  bleCapture?: { data: string; rssi?: number; channel?: 37 | 38 | 39; addr?: string; scanResponse?: boolean; connectable?: boolean };
  nfc?: { field: boolean } | { write: string };
  cloudMessage?: { type: string; payload?: unknown };
  cloudNetwork?: boolean;
  cloudDeploy?: { app: string };
}

export interface Scenario {
  description?: string;
  origin?: { lat: number; long: number };
  utc?: string | number | null;
  duration?: Interval;
  devices?: ScenarioDevice[];
  groups?: ScenarioGroup[];
  events?: ScenarioEvent[];
  seed?: number;
  beacons?: ScenarioBeacon[];
  uwb?: { interval?: Interval; seed?: number };
  /** Not in the file: parseScenario expands the groups into `devices` and keeps here where each
   * device came from (a JSON path: devices[3], groups[1]) and the key that named its app. */
  sources?: { at: string[]; appAt: (string | undefined)[] };
}

/** A scenario that is not valid: where (a JSON path such as events[2].press.hold) and why. */
export class ScenarioError extends Error {
  constructor(
    readonly file: string,
    readonly at: string,
    readonly reason: string,
  ) {
    super(`${file}: ${at ? `${at}: ` : ''}${reason}`);
    this.name = 'ScenarioError';
  }
}

/** The input keys of an event: exactly one per event. */
export const INPUTS = [
  'press', 'button', 'motion', 'accel', 'gyro', 'orientation', 'imuEvent', 'battery', 'current',
  'power', 'temperature', 'timeSync', 'imuFault', 'fault', 'move', 'powerCut', 'storageFault', 'bleCapture', 'nfc',
  'cloudMessage', 'cloudNetwork', 'cloudDeploy',
] as const;

/** What each profile's hardware has beyond the common parts (world_profile.c). */
export const PROFILE_HAS: Record<Profile, { lte: boolean; nfc: boolean }> = {
  'ble-beacon': { lte: false, nfc: true },
  'lte-beacon': { lte: true, nfc: false },
  'ai-beacon': { lte: false, nfc: false },
};

export const PROFILE_HAS_SIDE_BUTTON: Record<Profile, boolean> = {
  'ble-beacon': false,
  'lte-beacon': false,
  'ai-beacon': true,
};

export const DEFAULT_PROFILE: Profile = 'lte-beacon';
export const DEFAULT_INTENSITY = 0.3;

export const ORIENTATION_G: Record<Orientation, Vector> = {
  'flat-top': [0, 0, 1],
  'flat-bottom': [0, 0, -1],
  'vertical-ble': [1, 0, 0],
  'vertical-gnss': [-1, 0, 0],
  'vertical-cloud': [0, 1, 0],
};

export function deviceNames(s: Scenario): string[] {
  return (s.devices ?? [{}]).map((d, i) => d.name ?? `d${i}`);
}

/** Bytes of advertising data one legacy packet carries. */
export const AD_LEGACY_MAX = 31;

function hexBytes(hex: string): number[] {
  const out: number[] = [];
  for (let i = 0; i + 1 < hex.length; i += 2) out.push(parseInt(hex.slice(i, i + 2), 16));
  return out;
}

/**
 * The advertising data (AD) of a packet given by its fields, in the order the firmware's encoder
 * writes them (src/runtime/ble/rt_ble_ad.c): flags, tx power, 16-, 32-, 128-bit UUID lists, service
 * data, manufacturer data, name. UUIDs are written most significant byte first and sent
 * little-endian. A dozen lines, so no Bluetooth library is pulled into the tools for it.
 */
export function encodeAd(p: ScenarioPacket, file: string, at: string): number[] {
  const ad: number[] = [];
  const put = (type: number, data: number[]) => {
    if (data.length > 254) throw new ScenarioError(file, at, 'a field is longer than 254 bytes');
    ad.push(data.length + 1, type, ...data);
  };
  let manuf = p.manufData !== undefined ? hexBytes(p.manufData) : undefined;
  let flags = p.flags;
  if (p.iBeacon) {
    const b = p.iBeacon;
    const power = (b.measuredPower ?? -59) & 0xff;
    manuf = [0x4c, 0x00, 0x02, 0x15, ...hexBytes(b.uuid), b.major >> 8, b.major & 0xff, b.minor >> 8, b.minor & 0xff, power];
    flags = flags ?? 0x06;
  }
  if (flags) put(0x01, [flags]);
  if (p.txPower !== undefined) put(0x0a, [p.txPower & 0xff]);
  const uuids = (p.serviceUUIDs ?? []).map((u) => hexBytes(u).reverse());
  for (const [width, type] of [[2, 0x03], [4, 0x05], [16, 0x07]]) {
    const list = uuids.filter((u) => u.length === width);
    if (list.length) put(type, list.flat());
  }
  for (const [uuid, data] of Object.entries(p.serviceData ?? {})) {
    const u = hexBytes(uuid).reverse();
    put(u.length === 2 ? 0x16 : u.length === 4 ? 0x20 : 0x21, [...u, ...hexBytes(data)]);
  }
  if (manuf !== undefined) {
    if (manuf.length < 2) throw new ScenarioError(file, `${at}.manufData`, 'must start with the 2-byte company identifier');
    put(0xff, manuf);
  }
  if (p.name !== undefined) put(0x09, [...Buffer.from(p.name, 'utf8')]);
  return ad;
}

export function toHexText(bytes: number[]): string {
  return bytes.map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** Milliseconds of a scenario interval (0 allowed). */
export function intervalMs(value: Interval): number {
  if (typeof value === 'number') return Math.round(value);
  const m = /^(\d+(?:\.\d+)?|\.\d+) ?([a-z]+)?$/.exec(value)!;
  const unit: Record<string, number> = {
    ms: 1, s: 1000, sec: 1000, secs: 1000, m: 60_000, min: 60_000, mins: 60_000, h: 3_600_000,
    hour: 3_600_000, hours: 3_600_000, d: 86_400_000, day: 86_400_000, days: 86_400_000,
    w: 604_800_000, week: 604_800_000, weeks: 604_800_000,
  };
  return Math.round(Number(m[1]) * (m[2] === undefined ? 1 : unit[m[2]]));
}

/** A UTC time of the scenario in ms since 1970 (null: not synced). */
export function scenarioUtc(value: string | number | null): number | null {
  if (value === null) return null;
  if (typeof value === 'number') return value;
  const zoned = /(Z|[+-]\d{2}:\d{2})$/.test(value) || !value.includes('T') ? value : `${value}Z`;
  const ms = Date.parse(value.includes('T') ? zoned : `${value}T00:00:00Z`);
  return ms;
}

/** WGS-84 semi-major axis and flattening: x/y metres become latitude and longitude on the
 * ellipsoid's local radii at the origin (exact enough over the few kilometres of a scenario). */
const WGS84_A = 6378137;
const WGS84_F = 1 / 298.257223563;

/** A position as latitude, longitude and altitude. */
export function toLatLong(p: Position, origin: { lat: number; long: number }): { lat: number; long: number; alt: number } {
  if ('lat' in p) return { lat: p.lat, long: p.long, alt: p.alt ?? 0 };
  const phi = (origin.lat * Math.PI) / 180;
  const e2 = WGS84_F * (2 - WGS84_F);
  const w = Math.sqrt(1 - e2 * Math.sin(phi) ** 2);
  const meridian = (WGS84_A * (1 - e2)) / w ** 3; // radius of curvature north-south
  const normal = WGS84_A / w; // east-west
  return {
    lat: origin.lat + ((p.y / meridian) * 180) / Math.PI,
    long: origin.long + ((p.x / (normal * Math.cos(phi))) * 180) / Math.PI,
    alt: p.z ?? 0,
  };
}
