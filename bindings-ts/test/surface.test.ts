// The declared API surface against the spec (shared/spec/runtime-api.md). The tables below are
// transcribed from the spec's Endpoints, Versioning, Errors, Limits and Enumerations sections,
// not from the declarations, so each assertion is an independent check that the declarations
// say what the spec says.
import * as assert from 'assert/strict';
import * as path from 'path';
import { test } from 'node:test';
import { parseApi } from '../src/codegen/index';
import type { ApiIR, DefaultValue, FunctionIR, OverloadIR, ParamIR, RecordIR, TypeIR } from '../src/codegen/ir';
import { API_VERSIONS, type ApiVersion, toolsRoot } from '../src/codegen/versions';

const api: ApiIR = parseApi(path.join(toolsRoot(), 'api'));

const ALL: ApiVersion[] = ['0.0.9', '0.1.5', '0.2.6'];
const FROM_015: ApiVersion[] = ['0.1.5', '0.2.6'];
const ONLY_026: ApiVersion[] = ['0.2.6'];
const ONLY_015: ApiVersion[] = ['0.1.5'];
const ONLY_009: ApiVersion[] = ['0.0.9'];
const UNTIL_015: ApiVersion[] = ['0.0.9', '0.1.5'];

// ------------------------------------------------------------------ the spec, transcribed

/** Every function of the spec and the versions that have it. */
const FUNCTIONS: Record<string, ApiVersion[]> = {
  // Global functions; the four timer aliases are listed in 0.0.9 and 0.1.5 only.
  print: ALL, preview: ONLY_026, toHex: ALL, toMs: ONLY_026, toSec: ONLY_026,
  setTimeout: UNTIL_015, setInterval: UNTIL_015, clearTimeout: UNTIL_015, clearInterval: UNTIL_015,
  // timers: count is 0.2.6
  'timers.single': ALL, 'timers.repeat': ALL, 'timers.at': ALL, 'timers.count': ONLY_026,
  // ble
  'ble.advertise': ALL, 'ble.startScan': ALL, 'ble.parse': ALL, 'ble.stopScan': ALL,
  'ble.build.eddystoneUrl': ALL, 'ble.build.eddystoneTlm': ALL, 'ble.build.eddystoneUid': ALL,
  'ble.build.iBeacon': ALL, 'ble.build.altBeacon': FROM_015, 'ble.build.vendorLocation': ALL,
  'ble.build.vendorLocationTrigger': ALL, 'ble.build.vendorTelemetry': ALL,
  'ble.build.vendorNearable': ONLY_026, // since 0.2.4
  // io
  'io.led': ALL, 'io.setLedColor': ALL, 'io.setLedBrightness': ALL, 'io.getMaxLeds': ONLY_026,
  'io.press': ALL, 'io.onRawPress': ONLY_026,
  // sensors: the IMU object is sensors.accel in 0.0.9 and sensors.imu from 0.1.5
  'sensors.accel.get': ONLY_009, 'sensors.accel.setSens': ONLY_009,
  'sensors.accel.setResp': ONLY_009, 'sensors.accel.onMotion': ONLY_009,
  'sensors.imu.getAccel': FROM_015, 'sensors.imu.getGyro': FROM_015,
  'sensors.imu.getOrient': ONLY_026, 'sensors.imu.setSens': FROM_015,
  'sensors.imu.setResp': FROM_015, 'sensors.imu.setRange': FROM_015,
  'sensors.imu.onMotion': FROM_015,
  'sensors.battery.getVoltage': ALL, 'sensors.battery.isExtPower': ALL,
  'sensors.battery.isCharging': ALL, 'sensors.battery.getPerc': ALL,
  'sensors.battery.getCapacity': ONLY_026, 'sensors.battery.getAvgCurrent': ONLY_026,
  'sensors.battery.setPowerListener': ALL,
  'sensors.temp.get': ALL, 'sensors.temp.setFastMode': ALL,
  // cloud and sync
  'cloud.enqueue': ALL, 'cloud.setVar': ONLY_026, 'cloud.onReceive': ALL,
  'sync.setHandler': ALL, 'sync.setEndHandler': ONLY_026, 'sync.now': ALL, 'sync.setSyncPeriod': ALL,
  // storage: getStats since 0.1.0
  'storage.save': ALL, 'storage.read': ALL, 'storage.remove': ALL, 'storage.readAll': ALL,
  'storage.clear': ALL, 'storage.getStats': FROM_015,
  // location
  'location.distance': ALL, 'location.startUpdates': ALL, 'location.mock': ALL, 'location.stop': ALL,
  // sys
  'sys.getPublicId': ALL, 'sys.getUptime': ALL, 'sys.isTimeSynced': FROM_015,
  'sys.getFirmware': ALL, 'sys.getHardware': ALL,
  // modem, named lte in 0.0.9; getCells is 0.1.5 and 0.2.6
  'lte.getOperators': ONLY_009, 'lte.getStatus': ONLY_009, 'lte.getInfo': ONLY_009,
  'lte.setAirplaneMode': ONLY_009,
  'modem.getOperators': FROM_015, 'modem.getStatus': FROM_015, 'modem.getCells': FROM_015,
  'modem.getInfo': FROM_015, 'modem.setAirplaneMode': FROM_015,
  // app: gc since 0.0.9 but not listed in 0.1.5; getMemStats since 0.1.0
  'app.setErrorHandler': ALL, 'app.remove': ALL, 'app.stop': ALL, 'app.restart': ALL,
  'app.getUptime': ALL, 'app.gc': ['0.0.9', '0.2.6'], 'app.getMemStats': FROM_015,
  // nfc (0.0.9 only) and uwb (0.1.5 only)
  'nfc.onFieldChanged': ONLY_009, 'nfc.onWrite': ONLY_009, 'nfc.setMsg': ONLY_009,
  'uwb.start': ONLY_015, 'uwb.stop': ONLY_015,
};

/** Handle objects: the methods of what a function returns, and their versions. */
const HANDLES: Record<string, Record<string, ApiVersion[]>> = {
  'timers.single': { stop: ALL, end: ONLY_026, reset: ALL },
  'timers.repeat': { stop: ALL, restart: ALL },
  'timers.at': { stop: ALL },
  'timers.count': { stop: ONLY_026, end: ONLY_026 },
  'ble.advertise': { stop: ALL, pause: ONLY_026, resume: ONLY_026, interval: ALL, power: ALL },
  setTimeout: { stop: UNTIL_015 },
  setInterval: { stop: UNTIL_015 },
};

/** ESR codes the spec lists per function and version (Endpoints rows and the Errors table). */
const ERRORS: Record<string, Partial<Record<ApiVersion, string[]>>> = {
  'timers.single': { '0.1.5': ['ESR0004'], '0.2.6': ['ESR0004'] },
  'timers.repeat': { '0.1.5': ['ESR0004'], '0.2.6': ['ESR0004'] },
  'timers.at': { '0.1.5': ['ESR0004'], '0.2.6': ['ESR0004'] },
  'timers.count': { '0.2.6': ['ESR0004'] },
  setTimeout: { '0.1.5': ['ESR0004'] },
  setInterval: { '0.1.5': ['ESR0004'] },
  'ble.advertise': { '0.1.5': ['ESR0004'], '0.2.6': ['ESR0004'] },
  'sensors.imu.onMotion': {
    '0.2.6': ['ESR1801', 'ESR0003', 'ESR1802', 'ESR1803', 'ESR1804', 'ESR1805'],
  },
  'cloud.enqueue': {
    '0.1.5': ['ESR0203', 'ESR0204', 'ESR0201', 'ESR0202', 'ESR0104'],
    '0.2.6': ['ESR0203', 'ESR0204', 'ESR0201', 'ESR0202', 'ESR0104'],
  },
  'storage.save': {
    '0.1.5': ['ESR0203', 'ESR0204', 'ESR0201', 'ESR0202'],
    '0.2.6': ['ESR0203', 'ESR0204', 'ESR0201', 'ESR0202', 'ESR0205'],
  },
  'uwb.start': { '0.1.5': ['ESR1701', 'ESR1703'] },
};

/** "In 0.0.9 the same four conditions carry no codes" (cloud.enqueue, storage.save). */
const UNCODED_IN_009 = ['cloud.enqueue', 'storage.save'];

/** Version differences of signatures: the forms (parameter lists, ? = optional) per version. */
const FORMS: Record<string, Partial<Record<ApiVersion, string[]>>> = {
  'io.press': {
    '0.0.9': ['callback, pressType?'],
    '0.1.5': ['callback, pressType?', 'buttonId, callback, pressType?'],
    '0.2.6': ['callback, pressType?', 'buttonId, callback, pressType?'],
  },
  'io.setLedColor': {
    '0.0.9': ['id, color', 'color'],
    '0.1.5': ['id, color', 'id, htmlColor', 'color', 'htmlColor'],
    '0.2.6': ['id, color', 'id, htmlColor', 'color', 'htmlColor'],
  },
  'io.led': { '0.0.9': ['id, state', 'state'], '0.2.6': ['id, state', 'state'] },
  'io.setLedBrightness': { '0.0.9': ['id, brightness', 'brightness'], '0.2.6': ['id, brightness', 'brightness'] },
  'ble.advertise': { '0.0.9': ['callback', 'data'], '0.2.6': ['callback', 'data'] },
  'ble.startScan': {
    '0.0.9': ['callback, duration?'],
    '0.1.5': ['callback, duration?'],
    '0.2.6': ['callback, duration?, options?'],
  },
  'cloud.enqueue': {
    '0.0.9': ['type, message'],
    '0.1.5': ['type, message, options?'],
    '0.2.6': ['type, message, options?'],
  },
  'lte.setAirplaneMode': { '0.0.9': ['state'] },
  'modem.setAirplaneMode': { '0.1.5': ['state'], '0.2.6': ['state?'] },
  'sensors.temp.setFastMode': { '0.0.9': ['enabled'], '0.1.5': ['enabled'], '0.2.6': ['enabled?'] },
  'sensors.imu.onMotion': {
    '0.1.5': ['callback'],
    '0.2.6': ['callback', 'eventType, callback, options?'],
  },
  'location.startUpdates': { '0.0.9': ['callback, options?'], '0.2.6': ['callback, options?'] },
  'uwb.start': { '0.1.5': ['role, options?, callback?'] },
  'timers.count': { '0.2.6': ['interval, count, callback'] },
};

/** Return values that differ by version. */
const RETURNS: Record<string, Partial<Record<ApiVersion, string>>> = {
  'cloud.enqueue': { '0.0.9': 'void', '0.1.5': 'number', '0.2.6': 'number' },
  'storage.save': { '0.0.9': 'void', '0.1.5': 'number', '0.2.6': 'number' },
};

/**
 * Parameters that accept null, with the versions where they do. Callback parameters not listed
 * here must refuse null: "Passing null as a callback unregisters the previous callback wherever
 * a row says so".
 */
const NULLABLE: Record<string, ApiVersion[]> = {
  'io.press callback': ONLY_026,
  'io.onRawPress callback': ONLY_026,
  'sensors.accel.onMotion callback': ONLY_009,
  'sensors.imu.onMotion callback': FROM_015,
  'sensors.battery.setPowerListener callback': ALL,
  'cloud.onReceive msgHandler': ALL,
  'sync.setHandler callback': ALL,
  'sync.setEndHandler callback': ONLY_026,
  'app.setErrorHandler errorHandler': ALL,
  'nfc.onFieldChanged callback': ONLY_009,
  'nfc.onWrite callback': ONLY_009,
  // location.mock(null) stops mocking; nfc.setMsg(null) restores the initial message
  'location.mock position': ALL,
  'nfc.setMsg message': ONLY_009,
};

/** Limits: a parameter (or parameter.field; fn().method for handle methods) and its constraint. */
interface Limit {
  at: string;
  versions: ApiVersion[];
  type: Partial<Record<string, unknown>> & { kind: TypeIR['kind'] };
  default?: DefaultValue;
}
const ADV_POWERS = [-40, -20, -16, -12, -8, -4, 0, 4, 8, 20];
const MEASURED_POWER = { kind: 'number', min: -127, max: 127, integer: true } as const;
const LIMITS: Limit[] = [
  { at: 'print text', versions: ONLY_026, type: { kind: 'stringable', maxLen: 1024 } },
  { at: 'print text', versions: UNTIL_015, type: { kind: 'stringable', maxLen: 0 } },
  // "cloud.enqueue type | max length 30" in the Limits table, which marks no version
  { at: 'cloud.enqueue type', versions: ALL, type: { kind: 'string', maxLen: 30 } },
  { at: 'cloud.enqueue message', versions: ALL, type: { kind: 'pure' } },
  { at: 'cloud.enqueue options.volatile', versions: FROM_015, type: { kind: 'boolean' }, default: true },
  { at: 'cloud.setVar name', versions: ONLY_026, type: { kind: 'string', maxLen: 30 } },
  { at: 'sync.setSyncPeriod syncPeriod', versions: ALL, type: { kind: 'interval', unit: 's', min: 120, max: 7776000 } },
  { at: 'ble.advertise().interval interval', versions: ALL, type: { kind: 'interval', unit: 'ms', min: 100, max: Infinity } },
  { at: 'ble.advertise().power power', versions: ALL, type: { kind: 'snapDown', values: ADV_POWERS } },
  { at: 'ble.startScan duration', versions: ALL, type: { kind: 'interval', unit: 'ms' }, default: 10000 },
  { at: 'ble.startScan options.passive', versions: ONLY_026, type: { kind: 'boolean' }, default: false },
  { at: 'ble.startScan options.scanRequests', versions: ONLY_026, type: { kind: 'boolean' }, default: false },
  { at: 'ble.startScan options.interval', versions: ONLY_026, type: { kind: 'interval', unit: 'ms', min: 1, max: 10240 }, default: 150 },
  { at: 'ble.startScan options.window', versions: ONLY_026, type: { kind: 'interval', unit: 'ms', min: 1, max: 10240 }, default: 100 },
  { at: 'ble.startScan options.channels', versions: ONLY_026, type: { kind: 'oneOfEach', values: [37, 38, 39] }, default: [37, 38, 39] },
  { at: 'ble.startScan options.deduplicate', versions: ONLY_026, type: { kind: 'boolean' }, default: false },
  { at: 'ble.stopScan resolvePromise', versions: ALL, type: { kind: 'boolean' }, default: true },
  { at: 'ble.build.eddystoneUrl url', versions: ALL, type: { kind: 'string', maxLen: 50 } },
  { at: 'ble.build.eddystoneUrl measuredPower', versions: ALL, type: MEASURED_POWER, default: -20 },
  { at: 'ble.build.eddystoneUid namespace', versions: ALL, type: { kind: 'bytes', minLen: 10, maxLen: 10 } },
  { at: 'ble.build.eddystoneUid instance', versions: ALL, type: { kind: 'bytes', minLen: 6, maxLen: 6 } },
  { at: 'ble.build.eddystoneUid measuredPower', versions: ALL, type: MEASURED_POWER, default: -20 },
  { at: 'ble.build.iBeacon uuid', versions: ALL, type: { kind: 'bytes', maxLen: 16 } },
  { at: 'ble.build.iBeacon major', versions: ALL, type: { kind: 'number', min: 1, max: 65535, integer: true } },
  { at: 'ble.build.iBeacon minor', versions: ALL, type: { kind: 'number', min: 1, max: 65535, integer: true } },
  { at: 'ble.build.iBeacon measuredPower', versions: ALL, type: MEASURED_POWER, default: -50 },
  { at: 'ble.build.altBeacon id', versions: FROM_015, type: { kind: 'bytes', minLen: 16, maxLen: 20 } },
  { at: 'ble.build.altBeacon manufacturerId', versions: FROM_015, type: { kind: 'number', min: 1, max: 65535, integer: true } },
  { at: 'ble.build.altBeacon measuredPower', versions: FROM_015, type: MEASURED_POWER, default: -50 },
  { at: 'ble.build.altBeacon reserved', versions: FROM_015, type: { kind: 'number', min: 0, max: 256, integer: true }, default: 0 },
  { at: 'ble.build.vendorLocation measuredPower', versions: ALL, type: MEASURED_POWER, default: -50 },
  { at: 'ble.build.vendorLocationTrigger measuredPower', versions: ALL, type: MEASURED_POWER, default: -50 },
  { at: 'io.setLedColor color', versions: ALL, type: { kind: 'numTuple', length: 3, min: 0, max: 1 } },
  { at: 'io.setLedColor htmlColor', versions: FROM_015, type: { kind: 'string', maxLen: 20 } },
  { at: 'io.setLedBrightness brightness', versions: ALL, type: { kind: 'number', min: 0, max: 1 } },
  { at: 'io.press pressType', versions: ALL, type: { kind: 'number', min: 0, max: 2, integer: true }, default: 0 },
  { at: 'timers.count count', versions: ONLY_026, type: { kind: 'number', min: 0 } },
  { at: 'location.startUpdates options.timeout', versions: ALL, type: { kind: 'interval', unit: 's' }, default: 900 },
  { at: 'location.startUpdates options.minInterval', versions: ALL, type: { kind: 'interval', unit: 's' }, default: 5 },
  { at: 'location.startUpdates options.minDistance', versions: ALL, type: { kind: 'number', min: 0 }, default: 0 },
  { at: 'location.startUpdates options.maxFixWait', versions: ONLY_026, type: { kind: 'interval', unit: 's', min: 40, max: 600 }, default: 180 },
  { at: 'location.stop resolvePromise', versions: ALL, type: { kind: 'boolean' }, default: true },
  { at: 'modem.setAirplaneMode state', versions: ONLY_026, type: { kind: 'boolean' }, default: true },
  { at: 'sensors.temp.setFastMode enabled', versions: ONLY_026, type: { kind: 'boolean' }, default: true },
  { at: 'uwb.stop resolvePromise', versions: ONLY_015, type: { kind: 'boolean' }, default: true },
];

/** Fields of records, per version: options objects (parameters) and results. */
const RECORDS: { of: string; versions: ApiVersion[]; fields: string }[] = [
  { of: 'ble.startScan options', versions: ONLY_026, fields: 'passive scanRequests interval window channels deduplicate' },
  { of: 'ble.parse scanRecord', versions: ALL, fields: 'rssi channel scanResponse connectable addr name manufData serviceData serviceUUIDs txPower flags' },
  { of: 'cloud.enqueue options', versions: FROM_015, fields: 'volatile' },
  { of: 'location.startUpdates options', versions: UNTIL_015, fields: 'timeout minInterval minDistance' },
  { of: 'location.startUpdates options', versions: ONLY_026, fields: 'timeout minInterval minDistance maxFixWait' },
  { of: 'location.startUpdates result', versions: ALL, fields: 'lat long speed alt head prec diff ts sat mock' },
  { of: 'uwb.start options', versions: ONLY_015, fields: 'timeout mode panId minDistance maxDistance' },
  { of: 'sensors.imu.getAccel result', versions: FROM_015, fields: 'x y z' },
  { of: 'sensors.accel.get result', versions: ONLY_009, fields: 'x y z' },
  { of: 'sensors.imu.getGyro result', versions: FROM_015, fields: 'x y z' },
  { of: 'sensors.imu.getOrient result', versions: ONLY_026, fields: 'orient side' },
  { of: 'storage.getStats result', versions: FROM_015, fields: 'total used free' },
  { of: 'app.getMemStats result', versions: FROM_015, fields: 'total used free peak' },
  { of: 'lte.getOperators result', versions: ONLY_009, fields: 'name type status' },
  { of: 'modem.getOperators result', versions: FROM_015, fields: 'name type status' },
  { of: 'lte.getStatus result', versions: ONLY_009, fields: 'name signal mcc mnc lac cell tech band' },
  { of: 'modem.getStatus result', versions: FROM_015, fields: 'name signal rssi rsrp rsrq mcc mnc lac cell tech band' },
  { of: 'modem.getCells result', versions: FROM_015, fields: 'name signal rssi rsrp rsrq mcc mnc lac cell tech band' },
  { of: 'modem.getInfo result', versions: FROM_015, fields: 'iccid imei imsi' },
];

/** Enumerations and constants, with their values per version. */
const ENUMS: { name: string; versions: ApiVersion[]; values: Record<string, unknown> }[] = [
  { name: 'io.Led', versions: ONLY_009, values: { LTE: 0, GPS: 1, BLE: 2 } },
  { name: 'io.Led', versions: FROM_015, values: { LTE: 100, GPS: 101, BLE: 102 } },
  {
    name: 'io.Color', versions: ONLY_009,
    values: { RED: [1, 0, 0], GREEN: [0, 1, 0], BLUE: [0, 0, 1], YELLOW: [1, 1, 0], WHITE: [1, 1, 1], CYAN: [0, 1, 1], MAGENTA: [1, 0, 1] },
  },
  {
    name: 'io.Color', versions: FROM_015,
    values: {
      RED: [1, 0, 0], GREEN: [0, 1, 0], BLUE: [0, 0, 1], YELLOW: [1, 1, 0], WHITE: [1, 1, 1], CYAN: [0, 1, 1], MAGENTA: [1, 0, 1],
      ORANGE: [0.99, 0.41, 0.002],
    },
  },
  { name: 'io.PressType', versions: ALL, values: { SHORT: 0, LONG: 1, VERY_LONG: 2 } },
  { name: 'io.Button', versions: ALL, values: { MAIN: 0, SIDE: 1 } },
  { name: 'sensors.imu.Level', versions: FROM_015, values: { LOWEST: 0, LOW: 1, MEDIUM: 2, HIGH: 3, HIGHEST: 4 } },
  { name: 'sensors.imu.Range', versions: FROM_015, values: { RANGE_2G: 0, RANGE_4G: 1, RANGE_8G: 2, RANGE_16G: 3 } },
  {
    name: 'sensors.imu.MotionEvent', versions: ONLY_026,
    values: { GENERIC: 0, FREE_FALL: 1, SINGLE_TAP: 2, DOUBLE_TAP: 3, TILT: 4, STEP: 5, ORIENTATION: 6, WAKE_UP: 7, MLC: 8 },
  },
  { name: 'uwb.Role', versions: ONLY_015, values: { RESPONDER: 0, INITIATOR: 1 } },
];

/** nfc.RecordType: the spec names the members (TEXT, URI, EXTERNAL) but not their values. */
const VALUELESS_ENUMS: { name: string; versions: ApiVersion[]; members: string[] }[] = [
  { name: 'nfc.RecordType', versions: ONLY_009, members: ['TEXT', 'URI', 'EXTERNAL'] },
];

// ------------------------------------------------------------------ reading the declarations

const bitOf = (v: ApiVersion) => 1 << API_VERSIONS.indexOf(v);
const versionsOf = (mask: number) => API_VERSIONS.filter((v) => mask & bitOf(v));
const maskOf = (fn: FunctionIR) => fn.overloads.reduce((m, o) => m | o.mask, 0);
const fullName = (fn: FunctionIR) => (fn.owner ? `${fn.owner}.${fn.name}` : fn.name);

function fn(name: string): FunctionIR {
  const found = api.functions.find((f) => fullName(f) === name);
  assert.ok(found, `${name} is not declared`);
  return found;
}

/** The overloads of a function (or `fn().method`, a method of the handle fn returns) in a version. */
function overloads(name: string, v: ApiVersion): OverloadIR[] {
  const m = /^(.*)\(\)\.(\w+)$/.exec(name);
  if (!m) return fn(name).overloads.filter((o) => o.mask & bitOf(v));
  const method = handleOf(m[1], v).methods.find((x) => x.name === m[2]);
  assert.ok(method, `${m[1]}() has no method ${m[2]}`);
  return method.overloads.filter((o) => o.mask & bitOf(v));
}

function handleOf(name: string, v: ApiVersion) {
  const names = new Set(overloads(name, v).map((o) => (o.returns.kind === 'handle' ? o.returns.name : '')));
  assert.equal(names.size, 1, `${name} returns one kind of handle in ${v}`);
  const handle = api.handles.find((h) => names.has(h.name));
  assert.ok(handle, `${name} returns no handle in ${v}`);
  return handle;
}

function record(name: string): RecordIR {
  const found = api.records.find((r) => r.name === name);
  assert.ok(found, `record ${name} is not declared`);
  return found;
}

/** A result's record, through promises and arrays. */
function resultRecord(t: TypeIR): RecordIR {
  if (t.kind === 'promise' || t.kind === 'array') return resultRecord(t.of);
  assert.equal(t.kind, 'record', `expected a record result, found ${t.kind}`);
  return record((t as { name: string }).name);
}

/** The parameter `param` (or `param.field`) of name in version v, in every form that has it. */
function params(at: string, v: ApiVersion): (ParamIR | RecordIR['fields'][number])[] {
  const [name, path] = at.split(' ');
  const [param, field] = path.split('.');
  const found = overloads(name, v).flatMap((o) => o.params.filter((p) => p.name === param));
  assert.ok(found.length > 0, `${name} has no parameter ${param} in ${v}`);
  if (!field) return found;
  return found.map((p) => {
    assert.equal(p.type.kind, 'record', `${name} ${param} is not a record`);
    const f = record((p.type as { name: string }).name).fields.find((x) => x.name === field && x.mask & bitOf(v));
    assert.ok(f, `${name} ${param} has no field ${field} in ${v}`);
    return f;
  });
}

const form = (o: OverloadIR) => o.params.map((p) => p.name + (p.optional ? '?' : '')).join(', ');

// ------------------------------------------------------------------ the checks

test('every function of the spec exists in exactly its versions', () => {
  for (const [name, versions] of Object.entries(FUNCTIONS)) {
    assert.deepEqual(versionsOf(maskOf(fn(name))), versions, name);
  }
});

test('nothing is declared that the spec does not list', () => {
  // The spec writes `vendor` where the maker's name stands: ble.build.estimoteLocation is the
  // spec's ble.build.vendorLocation, under the maker's name, in exactly its versions.
  const specName = (n: string) => n.replace(/\.estimote(?=[A-Z])/, '.vendor');
  const extra = api.functions.map(fullName).filter((n) => !(specName(n) in FUNCTIONS));
  assert.deepEqual(extra, []);
  for (const f of api.functions.filter((x) => specName(fullName(x)) !== fullName(x))) {
    assert.deepEqual(versionsOf(maskOf(f)), FUNCTIONS[specName(fullName(f))], fullName(f));
  }
});

test('handle objects have exactly the spec\'s methods, in its versions', () => {
  for (const [returnedBy, methods] of Object.entries(HANDLES)) {
    const reach = maskOf(fn(returnedBy));
    const handle = handleOf(returnedBy, versionsOf(reach)[0]);
    const declared = Object.fromEntries(handle.methods.map((m) => [m.name, versionsOf(maskOf(m) & reach)]));
    assert.deepEqual(declared, methods, `methods of what ${returnedBy} returns`);
  }
});

test('chainable advertiser methods return the advertiser', () => {
  for (const method of ['pause', 'resume', 'interval', 'power']) {
    const [o] = overloads(`ble.advertise().${method}`, '0.2.6');
    assert.deepEqual(o.returns, { kind: 'handle', name: handleOf('ble.advertise', '0.2.6').name }, method);
  }
});

test('every ESR code the spec lists for a function in a version is in its @throws', () => {
  for (const [name, perVersion] of Object.entries(ERRORS)) {
    for (const [v, codes] of Object.entries(perVersion) as [ApiVersion, string[]][]) {
      const declared = new Set(overloads(name, v).flatMap((o) => o.throws.filter((t) => t.mask & bitOf(v)).map((t) => t.code)));
      for (const code of codes) assert.ok(declared.has(code), `${name} in ${v} does not declare ${code}`);
    }
  }
});

/**
 * Codes of the spec's families that calls raise beyond the spec's table, each for a reason the
 * maker's error reference gives: ESR0003 "Feature is unsupported on this hardware version" (a
 * modem query on hardware without LTE), ESR0201 for a sync that cannot read its queue.
 */
const BEYOND_THE_TABLE: Record<string, string[]> = {
  'modem.getOperators': ['ESR0003'], 'modem.getStatus': ['ESR0003'], 'modem.getCells': ['ESR0003'],
  'modem.getInfo': ['ESR0003'], 'lte.getOperators': ['ESR0003'], 'lte.getStatus': ['ESR0003'],
  'lte.getInfo': ['ESR0003'], 'sync.setEndHandler': ['ESR0201'],
};
/** Families the spec's table does not use: the maker's reference (modem, 04) and the product's
 * numbers for the reference's function call, synchronisation, type conversion and GNSS families
 * (docs/api.md, "Errors"). */
const OTHER_FAMILIES = /^ESR(04|05|06|07|09)\d\d$/;

test('no function declares a code the spec does not give it', () => {
  // ESR0203 applies to every JSON-only argument ("and any serialisable-object argument").
  for (const f of api.functions) {
    const name = fullName(f);
    const allowed = new Set([...Object.values(ERRORS[name] ?? {}).flat(), ...(BEYOND_THE_TABLE[name] ?? [])]);
    for (const o of f.overloads) {
      if (o.params.some((p) => p.type.kind === 'pure')) allowed.add('ESR0203');
      for (const t of o.throws) assert.ok(allowed.has(t.code) || OTHER_FAMILIES.test(t.code), `${name} declares ${t.code}`);
    }
  }
});

test('errors of 0.0.9 carry no codes where the spec says so', () => {
  for (const name of UNCODED_IN_009) {
    const codes = overloads(name, '0.0.9').flatMap((o) => o.throws.filter((t) => t.mask & bitOf('0.0.9')));
    assert.deepEqual(codes, [], name);
  }
});

test('signatures differ between versions as the spec says', () => {
  for (const [name, perVersion] of Object.entries(FORMS)) {
    for (const [v, forms] of Object.entries(perVersion) as [ApiVersion, string[]][]) {
      assert.deepEqual(overloads(name, v).map(form).sort(), [...forms].sort(), `${name} in ${v}`);
    }
  }
});

test('return values differ between versions as the spec says', () => {
  for (const [name, perVersion] of Object.entries(RETURNS)) {
    for (const [v, type] of Object.entries(perVersion) as [ApiVersion, string][]) {
      assert.deepEqual(overloads(name, v).map((o) => o.returnText), [type], `${name} in ${v}`);
    }
  }
});

test('null is accepted exactly where the spec allows it', () => {
  for (const [at, versions] of Object.entries(NULLABLE)) {
    for (const v of ALL) {
      const name = at.split(' ')[0];
      if (!(maskOf(fn(name)) & bitOf(v))) continue;
      for (const p of params(at, v)) {
        assert.equal(p.nullable, versions.includes(v), `${at} in ${v}: nullable`);
      }
    }
  }
  for (const f of api.functions) {
    for (const o of f.overloads) {
      for (const p of o.params.filter((x) => x.type.kind === 'function' && x.nullable)) {
        const allowed = NULLABLE[`${fullName(f)} ${p.name}`] ?? [];
        for (const v of versionsOf(o.mask)) {
          assert.ok(allowed.includes(v), `${fullName(f)} ${p.name} accepts null in ${v}`);
        }
      }
    }
  }
});

test('limits and defaults are the spec\'s', () => {
  for (const limit of LIMITS) {
    for (const v of limit.versions) {
      for (const p of params(limit.at, v)) {
        const actual = Object.fromEntries(Object.keys(limit.type).map((k) => [k, (p.type as Record<string, unknown>)[k]]));
        assert.deepEqual(actual, limit.type, `${limit.at} in ${v}`);
        assert.deepEqual(p.defaultValue, limit.default, `default of ${limit.at} in ${v}`);
      }
    }
  }
});

test('records have the spec\'s fields in each version', () => {
  for (const { of, versions, fields } of RECORDS) {
    const [name, what] = of.split(' ');
    for (const v of versions) {
      const recs = what === 'result'
        ? overloads(name, v).map((o) => resultRecord(o.returns))
        : params(`${name} ${what}`, v).map((p) => record((p.type as { name: string }).name));
      for (const rec of recs) {
        const declared = rec.fields.filter((f) => f.mask & bitOf(v)).map((f) => f.name);
        assert.deepEqual(declared, fields.split(' '), `${of} in ${v}`);
      }
    }
  }
});

test('enumerations and constants have the spec\'s values in each version', () => {
  const valueIn = (owner: string, v: ApiVersion) => Object.fromEntries(
    api.consts.filter((k) => k.owner === owner).flatMap((k) => {
      const value = k.values.find((x) => x.mask & bitOf(v));
      return value ? [[k.name, JSON.parse(value.json) as unknown]] : [];
    })
  );
  const presentIn = (path: string) => versionsOf(api.namespaces.find((n) => n.path === path)?.mask ?? 0);
  for (const { name, versions, values } of ENUMS) {
    for (const v of versions) assert.deepEqual(valueIn(name, v), values, `${name} in ${v}`);
  }
  for (const { name, versions, members } of VALUELESS_ENUMS) {
    for (const v of versions) assert.deepEqual(Object.keys(valueIn(name, v)), members, `${name} in ${v}`);
  }
  for (const name of new Set([...ENUMS, ...VALUELESS_ENUMS].map((e) => e.name))) {
    const versions = [...ENUMS, ...VALUELESS_ENUMS].filter((e) => e.name === name).flatMap((e) => e.versions);
    assert.deepEqual(presentIn(name), API_VERSIONS.filter((v) => versions.includes(v)), `${name} exists in`);
  }
});
