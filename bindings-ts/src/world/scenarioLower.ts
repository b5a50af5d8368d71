// A checked world scenario (scenario.ts) lowered to the world script the simulator's C world reads
// (src/world/world_script.h): devices, beacons, GNSS tracks and receivers, the modem's network and
// every timed input.
import * as path from 'path';
import { GpxError, readGpxFile } from './gpx';
import { expandDevices } from './scenarioGroups';
import {
  DEFAULT_INTENSITY, DEFAULT_PROFILE, deviceNames, encodeAd, intervalMs, ORIENTATION_G, Position, Scenario,
  ScenarioCell, ScenarioError, ScenarioGnss, ScenarioModem, scenarioUtc, toHexText, toLatLong,
} from './scenarioTypes';

export interface LoweredWorld {
  /** The world script (src/world/world_script.h). */
  script: string;
  /** Devices in order, with their app resolved against the scenario's directory and the JSON path
   * of the key that named it (devices[2].app, groups[0].apps[1]): a build error says it. */
  devices: { name: string; app?: string; appAt?: string }[];
  /** The scenario's duration, ms. */
  durationMs?: number;
  /** The messages the scenario sends devices (cloudMessage), in time order: `beacon run` gives
   * them to the cloud it starts, as the loopback cloud takes them from the script. */
  cloudMessages: { at: number; device: number; type: string; payload: unknown }[];
  /** The apps the scenario deploys through the loopback cloud (cloudDeploy): absolute paths and
   * the key that first names each; the world script's `cloud-deploy K` names the K-th, which
   * beacon-sim gets as its K-th --deploy. */
  deployApps: { app: string; at: string }[];
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
  if (s.groups) {
    // Not from parseScenario (which expands them): expand here, as it would.
    const x = expandDevices(s, file);
    s = { ...s, devices: x.devices, groups: undefined, sources: { at: x.at, appAt: x.appAt } };
  }
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
    const start = d.start !== undefined ? intervalMs(d.start) : 0;
    if (start > 0) keys.push(`start=${start}`);
    const g = d.accel ?? (d.orientation ? ORIENTATION_G[d.orientation] : undefined);
    if (g) keys.push(`accel=${g.map(num).join(',')}`);
    // Without a position a device stands at the origin: the point the scenario's x and y start from.
    const at = d.position ?? (s.origin ? { x: 0, y: 0 } : undefined);
    if (at) keys.push(`position=${positionArgs(at, origin).replace(/ /g, ',')}`);
    lines.push(['device', i, names[i], d.profile ?? DEFAULT_PROFILE, ...keys].join(' '));
  });
  devices.forEach((d, i) => {
    if (d.gnss) lines.push(...lowerGnss(d.gnss, i, origin, dir, file, `${s.sources?.at[i] ?? `devices[${i}]`}.gnss`));
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
  const deployApps: { app: string; at: string }[] = [];
  for (const [i, e] of (s.events ?? []).entries()) {
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
    } else if (e.cloudDeploy !== undefined) {
      // The package's number is its place among the scenario's deployed apps (beacon-sim --deploy).
      const app = path.resolve(dir, e.cloudDeploy.app);
      if (!deployApps.some((d) => d.app === app)) deployApps.push({ app, at: `events[${i}].cloudDeploy.app` });
      add(at, dev, `cloud-deploy ${deployApps.findIndex((d) => d.app === app)}`);
    }
  }
  timed.sort((a, b) => a.at - b.at || a.order - b.order);
  for (const t of timed) lines.push(t.line);
  return {
    script: lines.join('\n') + '\n',
    devices: devices.map((d, i) => ({
      name: names[i],
      app: d.app ? path.resolve(dir, d.app) : undefined,
      appAt: s.sources?.appAt[i] ?? (d.app ? `devices[${i}].app` : undefined),
    })),
    durationMs: s.duration !== undefined ? intervalMs(s.duration) : undefined,
    deployApps,
    cloudMessages: messages
      .sort((a, b) => a.at - b.at || a.order - b.order)
      .map(({ at, device, type, payload }) => ({ at, device, type, payload })),
  };
}
