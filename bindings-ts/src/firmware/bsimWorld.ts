// A scenario of several devices on firmwares: each device is an nrf52_bsim firmware of its own
// (world_main_zephyr.c --play N), and their BLE radios share BabbleSim's air (--air radio), so the
// apps advertise to and scan each other through Zephyr's real Bluetooth stack and controller.
// Each firmware prints its lines with their world time; they are merged here in the order of
// world time, as the simulator prints a world of several devices.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { HostToolsError } from '../compiler/hostTools';
import { BsimDevice, FirmwareRun, firmwareStatus, PairImages, runBsim } from './zephyr';

/** Where a world script puts its devices (lat, long in degrees, alt in metres), in index order;
 * a device without a position is at 0, 0, 0 as in the world. */
export function scriptPositions(script: string): [number, number, number][] {
  const at: [number, number, number][] = [];
  for (const line of script.split('\n')) {
    const m = /^device\s+(\d+)\s/.exec(line);
    if (!m) continue;
    const p = /\sposition=(-?[\d.]+),(-?[\d.]+),(-?[\d.]+)/.exec(line);
    at[Number(m[1])] = p ? [Number(p[1]), Number(p[2]), Number(p[3])] : [0, 0, 0];
  }
  return at;
}

/** The air model's path loss between two positions (docs/world.md, "Signal strength"): 40 dB +
 * 20 log10(d / 1 m), d the great-circle distance (haversine, as rt_geo_distance for the metres
 * between devices) combined with the difference in altitude, at least 0.1 m. */
export function pathLossDb(a: [number, number, number], b: [number, number, number]): number {
  const rad = Math.PI / 180;
  const h = Math.sin(((b[0] - a[0]) * rad) / 2) ** 2 +
    Math.cos(a[0] * rad) * Math.cos(b[0] * rad) * Math.sin(((b[1] - a[1]) * rad) / 2) ** 2;
  const ground = 2 * 6371008.8 * Math.asin(Math.min(1, Math.sqrt(h)));
  const d = Math.max(0.1, Math.hypot(ground, b[2] - a[2]));
  return 40 + 20 * Math.log10(d);
}

/** The devices a world script declares, in index order: `device <index> <name> <profile> ...`. */
export function scriptDevices(script: string): string[] {
  const names: string[] = [];
  for (const line of script.split('\n')) {
    const m = /^device\s+(\d+)\s+(\S+)/.exec(line);
    if (m) names[Number(m[1])] = m[2];
  }
  return names;
}

/** The profile of each device a world script declares, in index order. */
export function scriptProfiles(script: string): string[] {
  const profiles: string[] = [];
  for (const line of script.split('\n')) {
    const m = /^device\s+(\d+)\s+\S+\s+(\S+)/.exec(line);
    if (m) profiles[Number(m[1])] = m[2];
  }
  return profiles;
}

/** The scenario's scripted beacons (tags): `beacon <name> <lat>,<long>,<alt> ...`, in order. */
export function scriptBeacons(script: string): { name: string; at: [number, number, number] }[] {
  const beacons: { name: string; at: [number, number, number] }[] = [];
  for (const line of script.split('\n')) {
    const m = /^beacon\s+(\S+)\s+(-?[\d.]+),(-?[\d.]+),(-?[\d.]+)\s/.exec(line);
    if (m) beacons.push({ name: m[1], at: [Number(m[2]), Number(m[3]), Number(m[4])] });
  }
  return beacons;
}

/** The profile whose devices run as the LTE beacon's two chips. */
export const PAIR_PROFILE = 'lte-beacon';

export interface BsimWorldOptions {
  /** The world script (world_script.h's text) of the scenario. */
  script: string;
  /** One package for every device, or one per device in index order. */
  packages: string[];
  /** The firmwares' other run options (world_main_zephyr.c's: --for, --utc, ...). */
  args?: string[];
  /** Simulated time the air lasts at most (the firmwares end it before with --for). */
  lengthMs: number;
  /** Write the merged trace here. */
  trace?: string;
  /** Keep BabbleSim's physical-layer dumps (every packet each device sent and received) in this
   * directory: airDump.ts reads them (airDevices names their device numbers). */
  dumpDir?: string;
  /** Extra devices on the same air after the firmwares (the rig's phone, a scanner). */
  extra?: { image: string; args: string[] }[];
  /** The LTE beacon's two chips: a device whose profile is lte-beacon runs as this pair (its
   * host chip plays the device, off the air; its controller chip is its radio on the air).
   * Without it every device is one nrf52_bsim firmware. */
  pair?: PairImages;
  /** The scenario's beacons as firmwares on the air (--tag), each at its position, instead of
   * in each firmware's model of the air. */
  tagsOnAir?: boolean;
}

export interface BsimWorldRun extends FirmwareRun {
  /** Each firmware's own exit status, by device. */
  statuses: number[];
  /** The extra devices' stderr (their logs), in order. */
  extraStderr: string[];
  /** Who is who in the air's dumps: the name of BabbleSim's device n at n (a scenario device, the
   * controller chip of an lte-beacon under its device's name, a tag, then extra0, extra1...). */
  airDevices: string[];
}

interface Timed {
  at: number;
  device: number;
  text: string;
}

/** Lines that start with "@<ms> " (a playing firmware's) by world time, then device; the others
 * after them, by device, as they came. */
export function mergeByWorldTime(outputs: string[]): string {
  const timed: Timed[] = [];
  const rest: string[] = [];
  outputs.forEach((text, device) => {
    for (const line of text.split('\n')) {
      if (line === '') continue;
      const m = /^@(\d+) (.*)$/s.exec(line);
      if (m) timed.push({ at: Number(m[1]), device, text: m[2] });
      else rest.push(line);
    }
  });
  // Array.prototype.sort is stable: lines of one device at one time keep their order.
  timed.sort((a, b) => a.at - b.at || a.device - b.device);
  return [...timed.map((t) => t.text), ...rest].map((l) => `${l}\n`).join('');
}

/** Trace records (JSON lines with "t", the world time) of several firmwares, by time then device. */
function mergeTraces(traces: string[]): string {
  const records: Timed[] = [];
  traces.forEach((text, device) => {
    for (const line of text.split('\n')) {
      if (line === '') continue;
      const m = /"t":(\d+)/.exec(line);
      records.push({ at: m ? Number(m[1]) : 0, device, text: line });
    }
  });
  records.sort((a, b) => a.at - b.at || a.device - b.device);
  return records.map((r) => `${r.text}\n`).join('');
}

/** Run a scenario of several devices, one nrf52_bsim firmware each, on one simulated air. */
export async function runBsimWorld(image: string, o: BsimWorldOptions): Promise<BsimWorldRun> {
  const names = scriptDevices(o.script);
  if (names.length < 1) throw new HostToolsError('the world script declares no device');
  if (o.packages.length !== 1 && o.packages.length !== names.length) {
    throw new HostToolsError(`the world has ${names.length} devices but ${o.packages.length} packages were given`);
  }
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-bsim-world-'));
  try {
    const world = path.join(work, 'world.script');
    fs.writeFileSync(world, o.script);
    const files = names.map((_, i) => ({
      out: path.join(work, `stdout-${i}`),
      err: path.join(work, `stderr-${i}`),
      trace: path.join(work, `trace-${i}`),
    }));
    // The firmwares' own model of the air keeps the beacons that are not radios of their own.
    const tags = o.tagsOnAir ? scriptBeacons(o.script) : [];
    let deviceScript = world;
    if (tags.length > 0) {
      deviceScript = path.join(work, 'devices.script');
      fs.writeFileSync(deviceScript, o.script.split('\n').filter((l) => !/^beacon\s/.test(l)).join('\n'));
    }
    const profiles = scriptProfiles(o.script);
    const at = scriptPositions(o.script);
    // One list for runBsim, whose devices on the air are the phy's in list order: the scenario's
    // devices first (device i at i; an LTE beacon's host chip off the air there), then the
    // controller chips and the tags, which have positions like the devices, then the extras.
    type Entry = { name: string; device: BsimDevice; at?: [number, number, number] };
    const played: Entry[] = [];
    const controllers: Entry[] = [];
    names.forEach((_, i) => {
      const args = [
        '--stdout', files[i].out, '--stderr', files[i].err,
        ...(o.trace !== undefined ? ['--trace', files[i].trace] : []),
        '--world', deviceScript, '--play', String(i), '--air', 'radio',
        ...(o.args ?? []),
        path.resolve(o.packages[o.packages.length === 1 ? 0 : i]),
      ];
      if (o.pair !== undefined && profiles[i] === PAIR_PROFILE) {
        // The H:4 link's two FIFOs, crossed between the chips.
        const link = path.join(work, `link-${i}`);
        played.push({ name: names[i], device: { image: o.pair.host, args, offAir: true, boardArgs: [`-uart_link_txfile=${link}.up`, `-uart_link_rxfile=${link}.down`] } });
        controllers.push({ name: names[i], device: { image: o.pair.controller, args: [], boardArgs: [`-uart_link_txfile=${link}.down`, `-uart_link_rxfile=${link}.up`] }, at: at[i] });
      } else {
        played.push({ name: names[i], device: { image, args }, at: at[i] });
      }
    });
    const forArg = (o.args ?? []).indexOf('--for');
    const tagFor = forArg >= 0 ? ['--for', (o.args ?? [])[forArg + 1]] : [];
    const tagEntries: Entry[] = tags.map((tag) => ({ name: tag.name, device: { image, args: ['--world', world, '--tag', tag.name, ...tagFor] }, at: tag.at }));
    const extras: Entry[] = (o.extra ?? []).map((device, k) => ({ name: `extra${k}`, device }));
    const entries = [...played, ...controllers, ...tagEntries, ...extras];
    // The distances of the scenario become BabbleSim's per-pair attenuation, the model's path
    // loss, so that RSSI and what is too far to hear are the scenario's on the real radios too.
    // (The extras, last on the air, are beyond the matrix.)
    const placed = entries.filter((e) => !e.device.offAir && e.at !== undefined).map((e) => e.at!);
    const attenuations = placed.map((tx) => placed.map((rx) => pathLossDb(tx, rx)));
    const ran = await runBsim(entries.map((e) => e.device), o.lengthMs, { dumpDir: o.dumpDir, attenuations });
    const results = ran.slice(0, names.length);
    const tagsAt = played.length + controllers.length;
    const tagFailures = ran.slice(tagsAt, tagsAt + tags.length)
      .map((r, k) => (r.code === 0 ? '' : `tag ${tags[k].name}: exit ${r.code}\n${r.stderr}`)).join('');
    const read = (f: string): string => (fs.existsSync(f) ? fs.readFileSync(f, 'utf8') : '');
    const statuses = results.map((r) => r.code);
    const stderr = mergeByWorldTime(files.map((f) => read(f.err))) +
      results.map((r) => (firmwareStatus(r.code) ? '' : r.stderr)).join('') + tagFailures;
    if (o.trace !== undefined) fs.writeFileSync(o.trace, mergeTraces(files.map((f) => read(f.trace))));
    return {
      status: Math.max(...statuses),
      statuses,
      stdout: mergeByWorldTime(files.map((f) => read(f.out))),
      stderr,
      extraStderr: ran.slice(entries.length - extras.length).map((r) => r.stderr),
      airDevices: entries.filter((e) => !e.device.offAir).map((e) => e.name),
    };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
