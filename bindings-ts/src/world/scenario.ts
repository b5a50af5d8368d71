// World scenarios: the JSON file users write (bindings-ts/schema/world.schema.json, docs/world.md),
// checked with a JSON Schema validator (ajv) and then lowered to the world script the simulator's
// C world reads (src/world/world_script.h). Everything the C side could refuse is refused here
// first, with the JSON path and the reason, before anything runs.
import * as fs from 'fs';
import * as path from 'path';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020';
import { toolsRoot } from '../codegen/versions';
import { GpxError, readGpxFile } from './gpx';
import { schemaValidator } from './schemaValidator';

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
}

export interface Scenario {
  description?: string;
  origin?: { lat: number; long: number };
  utc?: string | number | null;
  duration?: Interval;
  devices?: ScenarioDevice[];
  events?: ScenarioEvent[];
  seed?: number;
  beacons?: ScenarioBeacon[];
  uwb?: { interval?: Interval; seed?: number };
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
const INPUTS = [
  'press', 'button', 'motion', 'accel', 'gyro', 'orientation', 'imuEvent', 'battery', 'current',
  'power', 'temperature', 'timeSync', 'imuFault', 'fault', 'move', 'powerCut', 'storageFault', 'bleCapture', 'nfc',
  'cloudMessage', 'cloudNetwork',
] as const;

/** What each profile's hardware has beyond the common parts (world_profile.c). */
const PROFILE_HAS: Record<Profile, { lte: boolean; nfc: boolean }> = {
  'ble-beacon': { lte: false, nfc: true },
  'lte-beacon': { lte: true, nfc: false },
  'ai-beacon': { lte: false, nfc: false },
};

const PROFILE_HAS_SIDE_BUTTON: Record<Profile, boolean> = {
  'ble-beacon': false,
  'lte-beacon': false,
  'ai-beacon': true,
};

const DEFAULT_PROFILE: Profile = 'lte-beacon';
const DEFAULT_INTENSITY = 0.3;

const ORIENTATION_G: Record<Orientation, Vector> = {
  'flat-top': [0, 0, 1],
  'flat-bottom': [0, 0, -1],
  'vertical-ble': [1, 0, 0],
  'vertical-gnss': [-1, 0, 0],
  'vertical-cloud': [0, 1, 0],
};

export function schemaPath(): string {
  return path.join(toolsRoot(), 'schema', 'world.schema.json');
}

let validator: ValidateFunction | undefined;

function validate(): ValidateFunction {
  validator ??= schemaValidator(schemaPath());
  return validator;
}

/** "/events/3/press/hold" -> "events[3].press.hold" */
function jsonPath(pointer: string): string {
  let out = '';
  for (const raw of pointer.split('/').slice(1)) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    out += /^\d+$/.test(part) ? `[${part}]` : out ? `.${part}` : part;
  }
  return out;
}

function describe(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'additionalProperties':
      return `unknown key '${String(p.additionalProperty)}'`;
    case 'required':
      return `missing '${String(p.missingProperty)}'`;
    case 'enum':
      return `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'type':
      return `must be ${String(p.type).replace(/,/g, ' or ')}`;
    default:
      return e.message ?? 'is not valid';
  }
}

/**
 * The most useful of ajv's errors: an interval that is neither a number nor an interval string
 * is reported as such, not as the two branches that failed; otherwise the deepest error.
 */
function firstError(errors: ErrorObject[]): { at: string; reason: string } {
  const interval = errors.find((e) => e.schemaPath.startsWith('#/$defs/interval/'));
  if (interval) {
    return {
      at: jsonPath(interval.instancePath),
      reason: "must be an interval: milliseconds, or a number and a unit ('500ms', '1.5s', '2 hours')",
    };
  }
  const utc = errors.find((e) => e.instancePath === '/utc');
  if (utc) {
    return { at: 'utc', reason: "must be an ISO 8601 time ('2026-01-01T00:00:00Z'), milliseconds since 1970, or null" };
  }
  // anyOf/oneOf wrappers say less than the branch errors they collect.
  const real = errors.filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf');
  const pool = real.length ? real : errors;
  const deepest = pool.reduce((a, b) => (b.instancePath.length > a.instancePath.length ? b : a));
  return { at: jsonPath(deepest.instancePath), reason: describe(deepest) };
}

/** Parse, validate and check a scenario file; throws ScenarioError. */
export function loadScenario(file: string): Scenario {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new ScenarioError(file, '', `cannot read the file: ${(err as Error).message}`);
  }
  return parseScenario(text, file);
}

export function parseScenario(text: string, file: string): Scenario {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ScenarioError(file, '', `not JSON: ${(err as Error).message}`);
  }
  const check = validate();
  if (!check(value)) {
    const { at, reason } = firstError(check.errors ?? []);
    throw new ScenarioError(file, at, reason);
  }
  const scenario = value as Scenario;
  checkMeaning(scenario, file);
  checkDevices(scenario, file);
  return scenario;
}

function deviceNames(s: Scenario): string[] {
  return (s.devices ?? [{}]).map((d, i) => d.name ?? `d${i}`);
}

/** What the schema cannot say: names that must match, one input per event, real buttons. */
function checkMeaning(s: Scenario, file: string): void {
  const names = deviceNames(s);
  const seen = new Map<string, number>();
  names.forEach((n, i) => {
    if (seen.has(n)) throw new ScenarioError(file, `devices[${i}].name`, `'${n}' is also the name of devices[${seen.get(n)}]`);
    seen.set(n, i);
  });
  (s.beacons ?? []).forEach((b, i) => {
    const at = `beacons[${i}]`;
    if ((b.packet === undefined) === (b.raw === undefined)) {
      throw new ScenarioError(file, at, 'give the packet either as packet (its fields) or as raw (AD hex), not both or neither');
    }
    if (b.packet) {
      const ad = encodeAd(b.packet, file, `${at}.packet`);
      if (ad.length > AD_LEGACY_MAX) {
        throw new ScenarioError(file, `${at}.packet`, `needs ${ad.length} bytes of advertising data; a packet carries ${AD_LEGACY_MAX}`);
      }
    }
    if (b.interval !== undefined && intervalMs(b.interval) < 20) {
      throw new ScenarioError(file, `${at}.interval`, 'must be at least 20 ms (the shortest advertising interval)');
    }
  });
  (s.events ?? []).forEach((e, i) => {
    const at = `events[${i}]`;
    const inputs = INPUTS.filter((k) => e[k] !== undefined);
    if (inputs.length !== 1) {
      throw new ScenarioError(file, at, inputs.length === 0
        ? `has no input (one of ${INPUTS.join(', ')})`
        : `has ${inputs.length} inputs (${inputs.join(', ')}): give each its own event`);
    }
    let index = 0;
    if (e.device !== undefined) {
      const found = seen.get(e.device);
      if (found === undefined) throw new ScenarioError(file, `${at}.device`, `no device is named '${e.device}' (devices: ${names.join(', ')})`);
      index = found;
    } else if (names.length > 1) {
      throw new ScenarioError(file, `${at}.device`, `missing: the world has ${names.length} devices (${names.join(', ')})`);
    }
    const profile = s.devices?.[index]?.profile ?? DEFAULT_PROFILE;
    if (e.nfc && !PROFILE_HAS[profile].nfc) {
      throw new ScenarioError(file, `${at}.nfc`, `device '${names[index]}' (${profile}) has no NFC tag (ble-beacon has one)`);
    }
    const button = e.press?.button ?? e.button?.button;
    if (button === 'side' && !PROFILE_HAS_SIDE_BUTTON[profile]) {
      const key = e.press ? 'press' : 'button';
      throw new ScenarioError(file, `${at}.${key}.button`, `device '${names[index]}' (${profile}) has no side button`);
    }
  });
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

function toHexText(bytes: number[]): string {
  return bytes.map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** Devices' GNSS and modem: what the schema cannot say. */
function checkDevices(s: Scenario, file: string): void {
  if (s.uwb?.interval !== undefined) {
    const ms = intervalMs(s.uwb.interval);
    if (ms < 10 || ms > 3_600_000) throw new ScenarioError(file, 'uwb.interval', 'must be from 10 ms to 1 hour');
  }
  const origin = s.origin ?? { lat: 0, long: 0 };
  (s.devices ?? []).forEach((d, i) => {
    const at = `devices[${i}]`;
    const profile = d.profile ?? DEFAULT_PROFILE;
    if (d.modem && !PROFILE_HAS[profile].lte) {
      throw new ScenarioError(file, `${at}.modem`, `a ${profile} has no LTE modem (lte-beacon has one)`);
    }
    const g = d.gnss;
    if (!g) return;
    if (g.track && g.gpx !== undefined) {
      throw new ScenarioError(file, `${at}.gnss`, 'give the track either as points (track) or as a GPX file (gpx), not both');
    }
    if (g.gpxOffset !== undefined && g.gpx === undefined) {
      throw new ScenarioError(file, `${at}.gnss.gpxOffset`, 'only with gpx');
    }
    if (!g.track && g.gpx === undefined && (g.outages || g.sky)) {
      throw new ScenarioError(file, `${at}.gnss`, 'outages and sky need a track (track or gpx)');
    }
    let last = -Infinity;
    (g.track ?? []).forEach((p, k) => {
      const where = `${at}.gnss.track[${k}]`;
      const geo = p.lat !== undefined || p.long !== undefined || p.alt !== undefined;
      const local = p.x !== undefined || p.y !== undefined || p.z !== undefined;
      if (geo === local || (geo && (p.lat === undefined || p.long === undefined)) || (local && (p.x === undefined || p.y === undefined))) {
        throw new ScenarioError(file, where, 'a point needs lat and long (alt optional) or x and y (z optional)');
      }
      if (local && Math.abs(toLatLong({ x: p.x!, y: p.y!, z: p.z }, origin).lat) > 90) {
        throw new ScenarioError(file, where, 'this point lies beyond a pole (x/y are metres from the origin)');
      }
      const t = intervalMs(p.at);
      if (t <= last) throw new ScenarioError(file, `${where}.at`, 'points must be in strictly increasing order of time');
      last = t;
    });
    let end = -Infinity;
    (g.outages ?? []).forEach((o, k) => {
      const from = intervalMs(o.from);
      const to = intervalMs(o.to);
      if (to <= from) throw new ScenarioError(file, `${at}.gnss.outages[${k}].to`, 'must be after from');
      if (from < end) throw new ScenarioError(file, `${at}.gnss.outages[${k}].from`, 'outages must be in order and must not overlap');
      end = to;
    });
    let skyAt = -Infinity;
    (g.sky ?? []).forEach((e, k) => {
      const t = intervalMs(e.at);
      if (t <= skyAt) throw new ScenarioError(file, `${at}.gnss.sky[${k}].at`, 'sky entries must be in strictly increasing order of time');
      skyAt = t;
    });
  });
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

export interface LoweredWorld {
  /** The world script (src/world/world_script.h). */
  script: string;
  /** Devices in order, with their app resolved against the scenario's directory. */
  devices: { name: string; app?: string }[];
  /** The scenario's duration, ms. */
  durationMs?: number;
  /** The messages the scenario sends devices (cloudMessage), in time order: `beacon run` gives
   * them to the cloud it starts, as the loopback cloud takes them from the script. */
  cloudMessages: { at: number; device: number; type: string; payload: unknown }[];
}

/** A message's payload as the one token the world script takes: JSON has no whitespace
 * outside its strings, and inside them a space can be written as an escape. */
function scriptJson(payload: unknown): string {
  return JSON.stringify(payload ?? null).replace(/\s/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The world script without its cloud-message lines: for a run whose devices sync with a cloud
 * outside the world, which gets the messages instead. */
export function withoutCloudMessages(script: string): string {
  return script
    .split('\n')
    .filter((l) => !/^at \d+ \d+ cloud-message /.test(l))
    .join('\n');
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

function positionArgs(p: Position, origin: { lat: number; long: number }): string {
  const ll = toLatLong(p, origin);
  return `${ll.lat.toFixed(9)} ${ll.long.toFixed(9)} ${num(ll.alt)}`;
}

function num(x: number): string {
  return Number.isInteger(x) ? String(x) : String(Number(x.toPrecision(12)));
}

/** Text in the world script: %-encoded where it could hold spaces or '%'. */
function scriptText(text: string): string {
  return text.replace(/[%\s=]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

function lowerGnss(g: ScenarioGnss, dev: number, origin: { lat: number; long: number }, dir: string,
  file: string, at: string): string[] {
  const out: string[] = [];
  const receiver: string[] = [];
  if (g.satellites !== undefined) receiver.push(`sat=${g.satellites}`);
  if (g.hdop !== undefined) receiver.push(`hdop=${num(g.hdop)}`);
  if (g.ttff?.cold !== undefined) receiver.push(`cold=${intervalMs(g.ttff.cold)}`);
  if (g.ttff?.warm !== undefined) receiver.push(`warm=${intervalMs(g.ttff.warm)}`);
  if (g.ttff?.hot !== undefined) receiver.push(`hot=${intervalMs(g.ttff.hot)}`);
  if (g.noise !== undefined) receiver.push(`noise=${num(g.noise)}`);
  if (g.seed !== undefined) receiver.push(`seed=${g.seed}`);
  if (receiver.length) out.push(`gnss ${dev} receiver ${receiver.join(' ')}`);
  if (g.track) {
    for (const p of g.track) {
      const ll = toLatLong(p.lat !== undefined ? { lat: p.lat, long: p.long!, alt: p.alt } : { x: p.x!, y: p.y!, z: p.z }, origin);
      const motion = p.speed !== undefined || p.head !== undefined ? ` ${p.speed !== undefined ? num(p.speed) : '-'} ${p.head !== undefined ? num(p.head) : '-'}` : '';
      out.push(`gnss ${dev} point ${intervalMs(p.at)} ${ll.lat.toFixed(9)} ${ll.long.toFixed(9)} ${num(ll.alt)}${motion}`);
    }
  } else if (g.gpx !== undefined) {
    const gpxFile = path.resolve(dir, g.gpx);
    let points;
    try {
      points = readGpxFile(gpxFile);
    } catch (err) {
      const why = err instanceof GpxError ? `${err.path}: ${err.detail}` : (err as Error).message;
      throw new ScenarioError(file, `${at}.gpx`, `${g.gpx}: ${why}`);
    }
    const offset = g.gpxOffset !== undefined ? intervalMs(g.gpxOffset) : 0;
    let last = -Infinity;
    for (const [k, p] of points.entries()) {
      const t = Math.round(p.t) + offset;
      if (t <= last) {
        throw new ScenarioError(file, `${at}.gpx`, `${g.gpx}: track point ${k} is not later than the one before (points must be in strictly increasing order of time)`);
      }
      last = t;
      out.push(`gnss ${dev} point ${t} ${p.lat.toFixed(9)} ${p.long.toFixed(9)} ${num(p.alt)}`);
    }
  }
  for (const o of g.outages ?? []) out.push(`gnss ${dev} outage ${intervalMs(o.from)} ${intervalMs(o.to)}`);
  for (const e of g.sky ?? []) {
    out.push(`gnss ${dev} sky ${intervalMs(e.at)} ${e.satellites ?? g.satellites ?? 8} ${num(e.hdop ?? g.hdop ?? 1)}`);
  }
  return out;
}

function cellArgs(c: ScenarioCell): string {
  const keys: string[] = [];
  for (const k of ['name', 'tech', 'band'] as const) if (c[k] !== undefined) keys.push(`${k}=${scriptText(c[k]!)}`);
  for (const k of ['signal', 'rssi', 'rsrp', 'rsrq', 'mcc', 'mnc', 'lac', 'cell'] as const) {
    if (c[k] !== undefined) keys.push(`${k}=${num(c[k]!)}`);
  }
  return keys.join(' ');
}

function lowerModem(m: ScenarioModem, dev: number): string[] {
  const out: string[] = [];
  if (m.operators) {
    if (m.operators.length === 0) out.push(`modem ${dev} operators none`);
    for (const o of m.operators) {
      out.push(`modem ${dev} operator ${scriptText(o.name)} ${scriptText(o.type ?? 'gsm')} ${o.status ?? 'avail'}`);
    }
  }
  if (m.status === null) out.push(`modem ${dev} status none`);
  else if (m.status) out.push(`modem ${dev} status ${cellArgs(m.status)}`.trimEnd());
  if (m.cells) {
    if (m.cells.length === 0) out.push(`modem ${dev} cells none`);
    for (const c of m.cells) out.push(`modem ${dev} cell ${cellArgs(c)}`.trimEnd());
  }
  if (m.sim === null) out.push(`modem ${dev} sim none`);
  else if (m.sim) {
    const keys = (['iccid', 'imei', 'imsi'] as const).filter((k) => m.sim![k] !== undefined).map((k) => `${k}=${m.sim![k]}`);
    out.push(`modem ${dev} sim ${keys.join(' ')}`.trimEnd());
  }
  for (const q of ['operators', 'status', 'cells', 'info'] as const) {
    if (m.scan?.[q] !== undefined) out.push(`modem ${dev} scan ${q} ${intervalMs(m.scan[q]!)}`);
  }
  return out;
}

/** Lower a checked scenario to the world script. file locates relative app paths. */
export function lowerScenario(s: Scenario, file: string): LoweredWorld {
  const lines = ['beacon-world 1'];
  const names = deviceNames(s);
  const devices = s.devices ?? [{}];
  const dir = path.dirname(path.resolve(file));
  const origin = s.origin ?? { lat: 0, long: 0 };
  devices.forEach((d, i) => {
    const keys: string[] = [];
    if (d.heap !== undefined) keys.push(`heap=${d.heap}`);
    if (d.imu !== undefined) keys.push(`imu=${d.imu ? 1 : 0}`);
    if (d.timeSynced !== undefined) keys.push(`synced=${d.timeSynced ? 1 : 0}`);
    if (d.battery?.percent !== undefined) keys.push(`battery=${num(d.battery.percent)}`);
    if (d.battery?.current !== undefined) keys.push(`current=${num(d.battery.current)}`);
    if (d.battery?.external !== undefined) keys.push(`external=${d.battery.external ? 1 : 0}`);
    if (d.battery?.charging !== undefined) keys.push(`charging=${d.battery.charging ? 1 : 0}`);
    if (d.temperature !== undefined) keys.push(`temperature=${num(d.temperature)}`);
    const g = d.accel ?? (d.orientation ? ORIENTATION_G[d.orientation] : undefined);
    if (g) keys.push(`accel=${g.map(num).join(',')}`);
    if (d.position) keys.push(`position=${positionArgs(d.position, origin).replace(/ /g, ',')}`);
    lines.push(['device', i, names[i], d.profile ?? DEFAULT_PROFILE, ...keys].join(' '));
  });
  devices.forEach((d, i) => {
    if (d.gnss) lines.push(...lowerGnss(d.gnss, i, origin, dir, file, `devices[${i}].gnss`));
    if (d.modem) lines.push(...lowerModem(d.modem, i));
  });
  if (s.uwb?.interval !== undefined) lines.push(`uwb interval ${intervalMs(s.uwb.interval)}`);
  if (s.uwb?.seed !== undefined) lines.push(`uwb seed ${s.uwb.seed}`);
  if (s.utc !== undefined) {
    const utc = scenarioUtc(s.utc);
    lines.push(`utc ${utc === null ? 'none' : utc}`);
  }
  if (s.seed !== undefined) lines.push(`seed ${s.seed}`);
  (s.beacons ?? []).forEach((b, i) => {
    const ad = b.raw !== undefined ? b.raw.toLowerCase() : toHexText(encodeAd(b.packet!, file, `beacons[${i}].packet`));
    const pos = positionArgs(b.position, origin).replace(/ /g, ',');
    const keys: string[] = [];
    if (b.addr) keys.push(`addr=${b.addr.toLowerCase()}`);
    if (b.scanResponse !== undefined) keys.push(`response=${b.scanResponse ? 1 : 0}`);
    if (b.connectable !== undefined) keys.push(`connectable=${b.connectable ? 1 : 0}`);
    const interval = b.interval !== undefined ? intervalMs(b.interval) : 1000;
    lines.push(['beacon', b.name ?? `b${i}`, pos, interval, num(b.power ?? 0), ad, ...keys].join(' '));
  });
  const index = new Map(names.map((n, i) => [n, i]));
  // Stable by time: inputs at the same time keep the scenario's order.
  const timed: { at: number; order: number; line: string }[] = [];
  const add = (at: number, dev: number, rest: string) =>
    timed.push({ at, order: timed.length, line: `at ${at} ${dev} ${rest}` });
  const messages: { at: number; order: number; device: number; type: string; payload: unknown }[] = [];
  for (const e of s.events ?? []) {
    const at = intervalMs(e.at);
    const dev = e.device !== undefined ? index.get(e.device)! : 0;
    if (e.press) {
      const button = e.press.button ?? 'main';
      add(at, dev, `button ${button} down`);
      add(at + intervalMs(e.press.hold), dev, `button ${button} up`);
    } else if (e.button) {
      add(at, dev, `button ${e.button.button ?? 'main'} ${e.button.down ? 'down' : 'up'}`);
    } else if (e.motion !== undefined) {
      const m = typeof e.motion === 'boolean' ? { moving: e.motion } : e.motion;
      add(at, dev, `motion ${m.moving ? 1 : 0} ${num(m.intensity ?? (m.moving ? DEFAULT_INTENSITY : 0))}`);
    } else if (e.accel || e.orientation) {
      const g = e.accel ?? ORIENTATION_G[e.orientation!];
      add(at, dev, `accel ${g.map(num).join(' ')}`);
    } else if (e.gyro) {
      add(at, dev, `gyro ${e.gyro.map(num).join(' ')}`);
    } else if (e.imuEvent) {
      const x = e.imuEvent;
      const axis = { x: 0, y: 1, z: 2 }[x.axis ?? 'z'];
      const amount = x.count ?? x.duration ?? x.value ?? 0;
      add(at, dev, `imu-event ${x.type} ${axis} ${x.direction ?? 1} ${amount} ${num(x.intensity ?? 0)}`);
    } else if (e.battery !== undefined) {
      add(at, dev, `battery ${num(e.battery)}`);
    } else if (e.current !== undefined) {
      add(at, dev, `current ${num(e.current)}`);
    } else if (e.power) {
      const d = devices[dev]?.battery;
      const external = e.power.external ?? d?.external ?? false;
      const charging = e.power.charging ?? external;
      add(at, dev, `power ${external ? 1 : 0} ${charging ? 1 : 0}`);
    } else if (e.temperature !== undefined) {
      add(at, dev, `temperature ${num(e.temperature)}`);
    } else if (e.timeSync !== undefined) {
      add(at, dev, `time-sync ${e.timeSync ? 1 : 0}`);
    } else if (e.imuFault !== undefined) {
      add(at, dev, `imu-fault ${e.imuFault ? 1 : 0}`);
    } else if (e.fault !== undefined) {
      add(at, dev, `fault ${e.fault}`);
    } else if (e.move !== undefined) {
      add(at, dev, `move ${positionArgs(e.move, origin)}`);
    } else if (e.powerCut !== undefined) {
      add(at, dev, `power-cut ${e.powerCut === true ? 0 : (e.powerCut.afterFlashOps ?? 0)}`);
    } else if (e.storageFault !== undefined) {
      add(at, dev, `storage-fault ${e.storageFault}`);
    } else if (e.bleCapture !== undefined) {
      const c = e.bleCapture;
      const keys: string[] = [];
      if (c.addr) keys.push(`addr=${c.addr.toLowerCase()}`);
      if (c.scanResponse !== undefined) keys.push(`response=${c.scanResponse ? 1 : 0}`);
      if (c.connectable !== undefined) keys.push(`connectable=${c.connectable ? 1 : 0}`);
      add(at, dev, ['ble-capture', c.data.toLowerCase(), c.rssi ?? -60, c.channel ?? 37, ...keys].join(' '));
    } else if (e.nfc !== undefined) {
      if ('field' in e.nfc) add(at, dev, `nfc-field ${e.nfc.field ? 1 : 0}`);
      else add(at, dev, `nfc-write ${e.nfc.write === '' ? '-' : e.nfc.write.toLowerCase()}`);
    } else if (e.cloudMessage !== undefined) {
      add(at, dev, `cloud-message ${e.cloudMessage.type} ${scriptJson(e.cloudMessage.payload)}`);
      messages.push({ at, order: messages.length, device: dev, type: e.cloudMessage.type, payload: e.cloudMessage.payload ?? null });
    } else if (e.cloudNetwork !== undefined) {
      add(at, dev, `cloud-network ${e.cloudNetwork ? 1 : 0}`);
    }
  }
  timed.sort((a, b) => a.at - b.at || a.order - b.order);
  for (const t of timed) lines.push(t.line);
  return {
    script: lines.join('\n') + '\n',
    devices: devices.map((d, i) => ({ name: names[i], app: d.app ? path.resolve(dir, d.app) : undefined })),
    durationMs: s.duration !== undefined ? intervalMs(s.duration) : undefined,
    cloudMessages: messages
      .sort((a, b) => a.at - b.at || a.order - b.order)
      .map(({ at, device, type, payload }) => ({ at, device, type, payload })),
  };
}
