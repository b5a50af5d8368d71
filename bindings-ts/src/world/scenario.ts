// World scenarios: the JSON file users write (bindings-ts/schema/world.schema.json, docs/world.md),
// checked with a JSON Schema validator (ajv) and then lowered to the world script the simulator's
// C world reads (src/world/world_script.h). Everything the C side could refuse is refused here
// first, with the JSON path and the reason, before anything runs. This module checks; the types
// are in scenarioTypes.ts and the lowering in scenarioLower.ts, both re-exported here.
import * as fs from 'fs';
import * as path from 'path';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020';
import { toolsRoot } from '../codegen/versions';
import { expandDevices } from './scenarioGroups';
import { schemaValidator } from './schemaValidator';
import {
  AD_LEGACY_MAX, DEFAULT_PROFILE, deviceNames, encodeAd, INPUTS, intervalMs, PROFILE_HAS, PROFILE_HAS_SIDE_BUTTON,
  Scenario, ScenarioError, toLatLong,
} from './scenarioTypes';

export type {
  Interval, Orientation, Position, Profile, Scenario, ScenarioBeacon, ScenarioCell, ScenarioDevice, ScenarioEvent,
  ScenarioGnss, ScenarioGroup, ScenarioModem, ScenarioPacket, TrackPoint, Vector,
} from './scenarioTypes';
export { DEFAULT_SPREAD_MS, MAX_DEVICES, expandDevices } from './scenarioGroups';
export { AD_LEGACY_MAX, encodeAd, intervalMs, ScenarioError, scenarioUtc, toLatLong } from './scenarioTypes';
export type { LoweredWorld } from './scenarioLower';
export { lowerScenario, withoutCloudMessages } from './scenarioLower';

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
    case 'minimum':
      return `must be at least ${String(p.limit)}`;
    case 'maximum':
      return `must be at most ${String(p.limit)}`;
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
  // Groups become devices first: every check after sees the world's devices, and says where in
  // the file each one comes from.
  const expanded = expandDevices(scenario, file);
  scenario.devices = expanded.devices;
  delete scenario.groups;
  scenario.sources = { at: expanded.at, appAt: expanded.appAt };
  checkMeaning(scenario, file);
  checkDevices(scenario, file);
  return scenario;
}

/** Device names for a message: a fleet's ten thousand would drown it. */
function nameList(names: string[]): string {
  return names.length <= 12 ? names.join(', ') : `${names.slice(0, 10).join(', ')}, ... ${names.length - 10} more`;
}

/** What the schema cannot say: names that must match, one input per event, real buttons. Names
 * are unique: expandDevices checked them. */
function checkMeaning(s: Scenario, file: string): void {
  const names = deviceNames(s);
  const seen = new Map<string, number>(names.map((n, i) => [n, i]));
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
      if (found === undefined) throw new ScenarioError(file, `${at}.device`, `no device is named '${e.device}' (devices: ${nameList(names)})`);
      index = found;
    } else if (names.length > 1) {
      throw new ScenarioError(file, `${at}.device`, `missing: the world has ${names.length} devices (${nameList(names)})`);
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

/** Devices' GNSS and modem: what the schema cannot say. */
function checkDevices(s: Scenario, file: string): void {
  if (s.uwb?.interval !== undefined) {
    const ms = intervalMs(s.uwb.interval);
    if (ms < 10 || ms > 3_600_000) throw new ScenarioError(file, 'uwb.interval', 'must be from 10 ms to 1 hour');
  }
  const origin = s.origin ?? { lat: 0, long: 0 };
  (s.devices ?? []).forEach((d, i) => {
    const at = s.sources?.at[i] ?? `devices[${i}]`;
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
