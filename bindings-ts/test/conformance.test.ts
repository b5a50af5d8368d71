// Conformance of the device API on the simulator. The cases are the table in
// tests/conformance/cases.json (its format: tests/conformance/README.md). For each API version
// this file writes one JavaScript micro-app (JavaScript, so that the type checker lets the wrong
// calls through) that runs every case of that version in try/catch and prints one line per case,
// runs it with `beacon run --api V`, and compares each line with what the table expects:
//
//  - every name of bindings-ts/types/api-index.json exists in exactly its versions (namespaces,
//    functions, enum members, and the methods of handles got from real calls), and the namespaces
//    and handle prototypes hold nothing else;
//  - every valid call passes the argument checks: an implemented function returns (with the
//    result the table gives, if it gives one), a function whose behaviour is not built yet throws
//    ESR0003 "... is not available in this firmware build"; never a TypeError or RangeError;
//  - every rejection throws the class or ESR code the table gives, with a message that names the
//    argument ("timers.single: interval ...").
//
// The table is checked against the declarations first: every function has a valid call in each of
// its versions, and every argument has the rejections its kind calls for (a wrong type, each bound
// of the declaration, null where the spec refuses it, ...); every ESR code a declaration lists is
// either tested or named as waiting for behaviour (reported as todo).
import { spawn } from 'child_process';
import * as assert from 'assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { after, test } from 'node:test';
import { scanImplemented } from '../src/codegen/emit-docs';
import { parseApi } from '../src/codegen/index';
import type { ApiIR, FieldIR, FunctionIR, HandleIR, ParamIR, TypeIR } from '../src/codegen/ir';
import { API_VERSIONS, type ApiVersion, toolsRoot } from '../src/codegen/versions';
import { workspaceMissing } from '../src/firmware/workspace';

const tools = toolsRoot();
const repo = path.dirname(tools);
const cli = path.join(tools, 'bin', 'beacon.js');
const tableFile = path.join(repo, 'tests', 'conformance', 'cases.json');

// ------------------------------------------------------------------ the table

interface CaseBase {
  /** The argument list, JavaScript source without the parentheses. */
  args: string;
  /** Versions the case runs in; default: every version that has the function. */
  versions?: ApiVersion[];
  /** The argument (or argument.field) the case is about. */
  param?: string;
  /** What the case exercises, one of CHECKS. */
  check?: string;
  /** Statements run before and after the call, in the same function (shared `var`s). */
  before?: string;
  after?: string;
  /** Methods: call the method with this value as `this` instead of the handle. */
  this?: string;
  note?: string;
}

interface ValidCase extends CaseBase {
  /** For an implemented function: JSON.stringify of the return value. */
  result?: string;
}

interface RejectCase extends CaseBase {
  /** TypeError, RangeError, Error (uncoded: 0.0.9) or an ESR code. */
  error: string;
  /** A piece of the message, beyond the "<function>: <param>" every message has. */
  message?: string;
  /**
   * Why the message cannot name param: the arguments fit no form of an overloaded function
   * better than another, so the error lists them instead ("no form of this function takes").
   */
  unnamed?: string;
}

/** A documented rejection that needs behaviour the runtime does not have yet. */
interface PendingCase {
  error: string;
  versions?: ApiVersion[];
  message?: string;
  why: string;
}

interface FunctionEntry {
  valid: ValidCase[];
  reject: RejectCase[];
  pending?: PendingCase[];
}

interface Table {
  /** Helpers every app defines before the cases (JavaScript lines). */
  prelude: string[];
  /** How a micro-app gets a handle of each kind: an expression. */
  handles: Record<string, { make: string }>;
  functions: Record<string, FunctionEntry>;
}

/** What a case exercises. Rejections and valid calls draw from the same list. */
const CHECKS = new Set([
  'type', // a value of the wrong type
  'min', 'max', // below the lower or above the upper bound (values, lengths, byte counts)
  'integer', // a fraction where a whole number is needed
  'format', // an interval string that is not one
  'hex', // a string that is not whole bytes of hex
  'null', // null: refused, or (valid) accepted where the spec allows it
  'invalid', // a value of the right type that is no valid value (an invalid Date)
  'value', // an item that is not one of the allowed values
  'empty', // an empty list where one item is needed
  'length', // a tuple of the wrong length
  'this', // a method called on something that is not its handle
  'pure:function', 'pure:promise', 'pure:handle', // a JSON-only value holding these
  'resources', // every slot in use (ESR0004)
  'form', // arguments that fit no form of an overloaded function
  'snap', // a power snapped down to an allowed value
  'default', // (valid) an argument left out takes its default
  'result', // (valid) the result of an implemented function
]);

const ERROR_CLASSES = new Set(['TypeError', 'RangeError', 'Error']);

const api: ApiIR = parseApi(path.join(tools, 'api'));
const implemented = scanImplemented(path.join(repo, 'src', 'runtime'));
const index = JSON.parse(fs.readFileSync(path.join(tools, 'types', 'api-index.json'), 'utf8')) as {
  versions: ApiVersion[];
  names: Record<string, ApiVersion[]>;
};
const table = JSON.parse(fs.readFileSync(tableFile, 'utf8')) as Table;

const bitOf = (v: ApiVersion) => 1 << API_VERSIONS.indexOf(v);
const versionsOf = (mask: number) => API_VERSIONS.filter((v) => mask & bitOf(v));
const maskOf = (fn: FunctionIR) => fn.overloads.reduce((m, o) => m | o.mask, 0);
const isImplemented = (fn: FunctionIR) => implemented.get(fn.native) === true;

interface ApiFunction {
  name: string;
  fn: FunctionIR;
  handle?: HandleIR;
}

const functions = new Map<string, ApiFunction>();
for (const fn of api.functions) {
  const name = fn.owner ? `${fn.owner}.${fn.name}` : fn.name;
  functions.set(name, { name, fn });
}
for (const hd of api.handles) {
  for (const m of hd.methods) functions.set(`${hd.name}.${m.name}`, { name: `${hd.name}.${m.name}`, fn: m, handle: hd });
}

/** The functions that return a handle of this kind, and in which versions. */
function producers(handle: string): { fn: FunctionIR; mask: number }[] {
  return api.functions.flatMap((fn) => {
    const mask = fn.overloads.filter((o) => o.returns.kind === 'handle' && o.returns.name === handle)
      .reduce((m, o) => m | o.mask, 0);
    return mask ? [{ fn, mask }] : [];
  });
}

/**
 * Versions in which an app can get a handle of this kind from a real call: a producer exists
 * there and has behaviour. (An Advertiser cannot be had while ble.advertise is not built; its
 * methods are tested in C, tests/c/test_glue.c, through the same generated tables.)
 */
function reachableIn(handle: string): ApiVersion[] {
  const mask = producers(handle).filter((p) => isImplemented(p.fn)).reduce((m, p) => m | p.mask, 0);
  return versionsOf(mask);
}

/** Versions in which the cases of a function run. */
function runsIn(f: ApiFunction): ApiVersion[] {
  const own = versionsOf(maskOf(f.fn));
  return f.handle ? own.filter((v) => reachableIn(f.handle!.name).includes(v)) : own;
}

const caseVersions = (f: ApiFunction, c: { versions?: ApiVersion[] }) => c.versions ?? versionsOf(maskOf(f.fn));

// ------------------------------------------------------------------ what the table must cover

interface Requirement {
  param: string;
  check: string;
  /** A valid call (null accepted, a snapped value) rather than a rejection. */
  valid?: boolean;
}

function isFinite(n: number | null): boolean {
  return n !== null && Number.isFinite(n);
}

/** The checks an argument of this type calls for. */
function checksOf(t: TypeIR, nullable: boolean): { reject: string[]; valid: string[] } {
  const reject: string[] = [];
  const valid: string[] = [];
  switch (t.kind) {
    case 'stringable':
      if (t.maxLen > 0) reject.push('max');
      break;
    case 'string':
      reject.push('type');
      if (t.maxLen > 0) reject.push('max');
      break;
    case 'interval':
      // the lower bound is at least 0: a negative interval is always refused
      reject.push('type', 'format', 'min');
      if (isFinite(t.max)) reject.push('max');
      break;
    case 'number':
      reject.push('type');
      if (isFinite(t.min)) reject.push('min');
      if (isFinite(t.max)) reject.push('max');
      if (t.integer) reject.push('integer');
      break;
    case 'bytes':
      reject.push('type', 'hex');
      if (t.minLen > 0) reject.push('min');
      if (t.maxLen > 0) reject.push('max');
      break;
    case 'pure':
      reject.push('pure:function', 'pure:promise', 'pure:handle');
      break;
    case 'timestamp':
      reject.push('type', 'invalid');
      break;
    case 'snapDown':
      reject.push('type', 'min', 'max');
      valid.push('snap');
      break;
    case 'oneOfEach':
      reject.push('type', 'value', 'empty');
      break;
    case 'numTuple':
      reject.push('type', 'length', 'min', 'max');
      break;
    case 'boolean': case 'byteSource': case 'object': case 'record': case 'handle': case 'array':
      reject.push('type');
      break;
    case 'function':
      reject.push('type');
      if (!nullable) reject.push('null');
      break;
    case 'any': case 'promise': case 'void':
      break;
  }
  if (nullable) valid.push('null');
  return { reject, valid };
}

/** Every check a function calls for in a version: per argument (and field of an argument). */
function requirements(f: ApiFunction, v: ApiVersion): Requirement[] {
  const out: Requirement[] = [];
  const add = (param: string, check: string, isValid = false) => {
    if (!out.some((r) => r.param === param && r.check === check && !!r.valid === isValid)) {
      out.push({ param, check, valid: isValid || undefined });
    }
  };
  const visit = (p: ParamIR | FieldIR, at: string) => {
    const { reject, valid } = checksOf(p.type, p.nullable);
    reject.forEach((c) => add(at, c));
    valid.forEach((c) => add(at, c, true));
    if (p.type.kind === 'record') {
      const rec = api.records.find((r) => r.name === (p.type as { name: string }).name)!;
      for (const field of rec.fields.filter((x) => x.mask & bitOf(v))) visit(field, `${at}.${field.name}`);
    }
  };
  for (const o of f.fn.overloads.filter((x) => x.mask & bitOf(v))) for (const p of o.params) visit(p, p.name);
  if (f.handle) add('', 'this');
  return out;
}

/** ESR codes the declarations say a function throws in a version. */
function declaredCodes(f: ApiFunction, v: ApiVersion): string[] {
  const codes = f.fn.overloads.filter((o) => o.mask & bitOf(v))
    .flatMap((o) => o.throws.filter((t) => t.mask & bitOf(v)).map((t) => t.code));
  return [...new Set(codes)];
}

test('the table covers every function, version and check', () => {
  const problems: string[] = [];
  for (const [name, entry] of Object.entries(table.functions)) {
    const f = functions.get(name);
    if (!f) {
      problems.push(`${name}: no such function or method in the declarations`);
      continue;
    }
    const own = versionsOf(maskOf(f.fn));
    for (const c of [...entry.valid, ...entry.reject, ...(entry.pending ?? [])]) {
      for (const v of c.versions ?? []) {
        if (!own.includes(v)) problems.push(`${name}: a case for ${v}, which does not have it`);
      }
    }
    for (const c of [...entry.valid, ...entry.reject]) {
      if (c.check !== undefined && !CHECKS.has(c.check)) problems.push(`${name}: unknown check '${c.check}'`);
      if (c.this !== undefined && !f.handle) problems.push(`${name}: 'this' is for methods`);
    }
    for (const c of [...entry.reject, ...(entry.pending ?? [])]) {
      if (!ERROR_CLASSES.has(c.error) && !/^ESR\d{4}$/.test(c.error)) {
        problems.push(`${name}: unknown error '${c.error}'`);
      }
      if ('unnamed' in c && (c.unnamed === undefined || c.message === undefined)) {
        problems.push(`${name}: an unnamed case needs its reason and the message`);
      }
      // 0.0.9 is uncoded only where the spec says so: the storage family's four and ESR0004.
      if (/^ESR(0004|020[1-4])$/.test(c.error) && caseVersions(f, c).includes('0.0.9')) {
        problems.push(`${name}: 0.0.9 has no code for ${c.error}; give its case the class Error and the message`);
      }
    }
  }
  for (const f of functions.values()) {
    const entry = table.functions[f.name];
    const versions = runsIn(f);
    if (versions.length === 0) continue;
    if (!entry) {
      problems.push(`${f.name}: no cases`);
      continue;
    }
    for (const v of versions) {
      const valid = entry.valid.filter((c) => caseVersions(f, c).includes(v));
      const reject = entry.reject.filter((c) => caseVersions(f, c).includes(v));
      const pending = (entry.pending ?? []).filter((c) => caseVersions(f, c).includes(v));
      if (valid.length === 0) problems.push(`${f.name} in ${v}: no valid call`);
      for (const r of requirements(f, v)) {
        const pool = r.valid ? valid : reject;
        if (!pool.some((c) => (c.param ?? '') === r.param && c.check === r.check)) {
          problems.push(`${f.name} in ${v}: no ${r.valid ? 'valid call' : 'rejection'} for ${r.param || 'this'}: ${r.check}`);
        }
      }
      for (const code of declaredCodes(f, v)) {
        if (!reject.some((c) => c.error === code) && !pending.some((c) => c.error === code)) {
          problems.push(`${f.name} in ${v}: documented ${code} is neither tested nor pending`);
        }
      }
    }
  }
  assert.deepEqual(problems, []);
});

// ------------------------------------------------------------------ the micro-apps

/** The prelude of every app: how a case runs and reports. */
const PRELUDE = `var G = Function('return this')();
function cls(e) {
  if (e instanceof RangeError) return 'RangeError';
  if (e instanceof TypeError) return 'TypeError';
  if (e instanceof Error) return 'Error';
  return 'not an Error (' + typeof e + ')';
}
function cut(s) { return s.length > 300 ? s.slice(0, 300) + '...' : s; }
function out(id, o) { print('#CF ' + id + ' ' + JSON.stringify(o)); }
function described(e) {
  var code = e !== null && typeof e === 'object' && 'code' in e ? String(e.code) : null;
  return { threw: cls(e), code: code, message: cut(String(e !== null && typeof e === 'object' ? e.message : e)) };
}
function shown(r) {
  var s;
  try { s = JSON.stringify(r); } catch (e) { s = '(not JSON)'; }
  return s === undefined ? 'undefined' : cut(s);
}
function run(id, call) {
  var r;
  try {
    r = call();
  } catch (e) {
    out(id, described(e));
    return;
  }
  out(id, { ok: true, result: shown(r) });
}
/* Case i of the app's step(): p.at says where it is, so an error of the code before or after
 * the call is told apart from the call's. */
function runCase(id, i, rejects) {
  var p = { at: 'before' };
  var r;
  try {
    r = step(i, p);
  } catch (e) {
    var d = described(e);
    if (p.at !== 'done') d.phase = p.at;
    out(id, d);
    return;
  }
  out(id, { ok: true, result: shown(r) });
  /* A function declared @rejects answers bad arguments with a rejected promise: its reason
   * replaces the line above (the last line of an id counts). */
  if (rejects && r && typeof r.then === 'function') {
    r.then(null, function (e) { out(id, described(e)); });
  }
}
function typeAt(path) {
  var o = G;
  var parts = path.split('.');
  for (var i = 0; i < parts.length; i++) {
    if (o === undefined || o === null) return 'undefined';
    o = o[parts[i]];
  }
  return typeof o;
}
function ownNames(o) { return Object.getOwnPropertyNames(o).sort(); }
function each(list, f) { for (var i = 0; i < list.length; i++) f(list[i], i); }
`;

interface Line {
  ok?: boolean;
  result?: string;
  threw?: string;
  code?: string | null;
  message?: string;
  phase?: string;
}

interface PlannedCase {
  id: string;
  f: ApiFunction;
  kind: 'valid' | 'reject';
  c: ValidCase | RejectCase;
}

interface App {
  version: ApiVersion;
  /** The apps that run the cases of this version, each in its own run. */
  sources: string[];
  cases: PlannedCase[];
  /** api-index names checked with typeof, by id. */
  names: Map<string, string>;
  /** Namespaces and handle kinds whose own property names are listed, by id. */
  owners: Map<string, string>;
}

function callSource(f: ApiFunction, c: CaseBase): string {
  if (!f.handle) return `${f.name}(${c.args})`;
  const method = f.fn.name;
  return c.this !== undefined ? `h.${method}.call(${c.this}, ${c.args})` : `h.${method}(${c.args})`;
}

/**
 * Case i of step(i, p), the function that holds every case of an app. One function rather than
 * one per case: Duktape spends about a kilobyte of heap on each function of a program.
 */
function caseClause(i: number, f: ApiFunction, c: CaseBase): string {
  const make = f.handle ? `h = ${table.handles[f.handle.name].make};` : '';
  const afterText = f.handle ? `${c.after ?? ''} h.stop();` : c.after ?? '';
  return `case ${i}:
${make} ${c.before ?? ''}
p.at = 'call';
try { r = ${callSource(f, c)}; } catch (e) { threw = true; err = e; }
p.at = 'after';
${afterText}
break;`;
}

/**
 * Most source one app may have: the bytecode of a bigger one, with what its cases allocate (the
 * limits' rows make strings of 12 kB), does not fit the simulator's heap (the device's, scaled for
 * a 64-bit host), so a version's cases are split over several apps. The margin matters more than
 * the average: a 12 kB string needs that much in one piece, so at 24,000 a change of a
 * number's representation elsewhere in the app (a float where there was an integer) could
 * fragment JerryScript's heap enough to fail it.
 */
const APP_SOURCE_MAX = 20_000;

function buildApp(version: ApiVersion): App {
  const head = [PRELUDE, ...table.prelude].join('\n');
  const names = new Map<string, string>();
  const owners = new Map<string, string>();
  const handleNames = new Set(api.handles.map((h) => h.name));
  const reachable = api.handles.filter((x) => reachableIn(x.name).includes(version)).map((x) => x.name);
  const makers = reachable.map((h) => `${JSON.stringify(h)}: function () { return ${table.handles[h].make}; }`);

  // Existence of every name of the index, and nothing else in the namespaces and on the handles:
  // data for the loops at the start of the first app.
  const plain: [string, string][] = [];
  const methods: [string, string, string][] = [];
  for (const name of Object.keys(index.names)) {
    const owner = name.split('.')[0];
    const id = `n${names.size}`;
    if (handleNames.has(owner)) {
      if (!reachable.includes(owner)) continue;
      methods.push([id, owner, name.slice(owner.length + 1)]);
    } else {
      plain.push([id, name]);
    }
    names.set(id, name);
  }
  const namespaces: [string, string][] = [];
  for (const ns of api.namespaces.filter((x) => x.mask & bitOf(version))) {
    const id = `o${owners.size}`;
    owners.set(id, ns.path);
    namespaces.push([id, ns.path]);
  }
  const protos: [string, string][] = [];
  for (const h of reachable) {
    const id = `o${owners.size}`;
    owners.set(id, h);
    protos.push([id, h]);
  }
  const existence = `var MAKE = {${makers.join(', ')}};
each(${JSON.stringify(plain)}, function (e) { run(e[0], function () { return typeAt(e[1]); }); });
each(${JSON.stringify(methods)}, function (e) {
  run(e[0], function () { var h = MAKE[e[1]](); var t = typeof h[e[2]]; h.stop(); return t; });
});
each(${JSON.stringify(namespaces)}, function (e) {
  run(e[0], function () { var o = G; each(e[1].split('.'), function (k) { o = o[k]; }); return ownNames(o); });
});
each(${JSON.stringify(protos)}, function (e) {
  run(e[0], function () { var h = MAKE[e[1]](); var n = ownNames(Object.getPrototypeOf(h)); h.stop(); return n; });
});`;

  // The cases, as many apps as it takes.
  const cases: PlannedCase[] = [];
  const sources: string[] = [];
  let clauses: string[] = [];
  let ids: string[] = [];
  let rejecting: string[] = [];
  let first = true;
  const flush = () => {
    sources.push([
      head,
      first ? existence : '',
      'function step(i, p) {',
      'var threw = false, err, r, h;',
      'switch (i) {',
      ...clauses,
      '}',
      "p.at = 'done';",
      'if (threw) throw err;',
      'return r;',
      '}',
      `var REJECTS = ${JSON.stringify(Object.fromEntries(rejecting.map((id) => [id, true])))};`,
      `each(${JSON.stringify(ids)}, function (id, i) { runCase(id, i, REJECTS[id] === true); });`,
      // Whatever the cases did (app.restart() asks for a restart), each run ends with the app;
      // after the rejections already settled have been handled (they are jobs queued before).
      'Promise.resolve().then(function () { app.stop(); });',
      '',
    ].join('\n'));
    first = false;
    clauses = [];
    ids = [];
    rejecting = [];
  };
  let size = existence.length;
  for (const [name, entry] of Object.entries(table.functions)) {
    const f = functions.get(name);
    if (!f || !runsIn(f).includes(version)) continue;
    const plan = (kind: 'valid' | 'reject', list: CaseBase[]) => {
      for (const c of list) {
        if (!caseVersions(f, c).includes(version)) continue;
        const clause = caseClause(ids.length, f, c);
        if (size + clause.length > APP_SOURCE_MAX && clauses.length > 0) {
          flush();
          size = 0;
        }
        const id = `c${cases.length}`;
        cases.push({ id, f, kind, c });
        clauses.push(caseClause(ids.length, f, c));
        ids.push(id);
        // a valid call's later rejection is the hardware's (no UWB radio here), not the arguments'
        if (kind === 'reject' && f.fn.overloads.some((o) => o.rejects)) rejecting.push(id);
        size += clause.length;
      }
    };
    plan('valid', entry.valid);
    plan('reject', entry.reject);
  }
  if (clauses.length > 0) flush();
  return { version, sources, cases, names, owners };
}

/** Every "#CF <id> <json>" line of a run, by id. */
function parseOutput(stdout: string): Map<string, Line> {
  const out = new Map<string, Line>();
  for (const line of stdout.split('\n')) {
    const m = /^#CF (\S+) (.*)$/.exec(line);
    if (m) out.set(m[1], JSON.parse(m[2]) as Line);
  }
  return out;
}

// ------------------------------------------------------------------ judging a line

const NOT_BUILT = 'is not available in this firmware build';

function describeLine(l: Line | undefined): string {
  if (!l) return 'no output (the app stopped before this case?)';
  if (l.ok) return `returned ${l.result}`;
  return `threw ${l.threw}${l.code ? ` ${l.code}` : ''}: ${l.message}${l.phase ? ` (in '${l.phase}')` : ''}`;
}

/** Why a valid call's line is wrong, or undefined when it is right. */
function judgeValid(f: ApiFunction, c: ValidCase, v: ApiVersion, l: Line | undefined): string | undefined {
  if (!l) return describeLine(l);
  if (l.phase) return `the case itself failed: ${describeLine(l)}`;
  if (isImplemented(f.fn)) {
    if (!l.ok) return `an implemented function must accept this: ${describeLine(l)}`;
    if (c.result !== undefined && l.result !== c.result) return `returned ${l.result}, expected ${c.result}`;
    return undefined;
  }
  // Not built yet: the checks passed when the call got as far as ESR0003.
  if (l.ok) return `returned ${l.result}, but the runtime has no behaviour for it (ESR0003 expected)`;
  const code = v === '0.0.9' ? null : 'ESR0003';
  if (l.threw !== 'Error' || l.code !== code || !l.message?.includes(NOT_BUILT)) {
    return `expected the checks to pass and ESR0003 '${NOT_BUILT}', ${describeLine(l)}`;
  }
  return undefined;
}

function judgeReject(f: ApiFunction, c: RejectCase, l: Line | undefined): string | undefined {
  if (!l) return describeLine(l);
  if (l.phase) return `the case itself failed: ${describeLine(l)}`;
  if (l.ok) return `accepted (${describeLine(l)}), expected ${c.error}`;
  const message = l.message ?? '';
  if (/^ESR/.test(c.error)) {
    if (l.threw !== 'Error' || l.code !== c.error || !message.startsWith(`${c.error} `)) {
      return `expected ${c.error}, ${describeLine(l)}`;
    }
  } else if (l.threw !== c.error || (c.error === 'Error' && l.code !== null)) {
    return `expected ${c.error}${c.error === 'Error' ? ' without a code' : ''}, ${describeLine(l)}`;
  }
  const where = c.param !== undefined && c.unnamed === undefined ? `${f.name}: ${c.param}` : undefined;
  if (where !== undefined && !message.includes(where)) return `the message does not name '${where}': ${message}`;
  if (c.message !== undefined && !message.includes(c.message)) return `the message lacks '${c.message}': ${message}`;
  return undefined;
}

// ------------------------------------------------------------------ running

const engines: { name: string; skip: string | false }[] = [
  { name: 'duktape', skip: false },
  { name: 'jerryscript', skip: workspaceMissing('jerryscript') },
];

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-conformance-'));
// Kept when a run failed, for a look at the app (its path is in the failure).
let runFailed = false;
after(() => {
  if (!runFailed) fs.rmSync(work, { recursive: true, force: true });
});

interface RunResult {
  file: string;
  status: number | null;
  stdout: string;
  stderr: string;
}

/** `beacon run` of one app; never rejects. */
function runApp(file: string, version: ApiVersion, engine: string): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, 'run', file, '--api', version, '--engine', engine, '--for', '1s', '--cloud', 'loopback'], {
      timeout: 300_000,
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e) => resolve({ file, status: null, stdout: '', stderr: String(e) }));
    child.on('close', (status) => {
      resolve({ file, status, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
  });
}

/**
 * Two runs at a time (the machines that run the tests have two cores), the first one alone: it
 * may have to build the simulator, which two runs must not do at once.
 */
let free = 2;
const waiting: (() => void)[] = [];
let primed: Promise<void> | undefined;
async function limited<T>(job: () => Promise<T>): Promise<T> {
  if (!primed) {
    let done = (): void => {};
    primed = new Promise((resolve) => (done = resolve));
    try {
      return await job();
    } finally {
      done();
    }
  }
  await primed;
  while (free === 0) await new Promise<void>((resolve) => waiting.push(resolve));
  free--;
  try {
    return await job();
  } finally {
    free++;
    waiting.shift()?.();
  }
}

// Every run starts now; each test waits for its own.
const apps = new Map(API_VERSIONS.map((v) => [v, buildApp(v)]));
const runs = new Map<string, Promise<RunResult>[]>();
for (const { name: engine, skip } of engines) {
  if (skip) continue;
  for (const [version, app] of apps) {
    runs.set(`${engine} ${version}`, app.sources.map((source, i) => {
      const file = path.join(work, `conformance-${engine}-${version}-${i}.js`);
      fs.writeFileSync(file, source);
      return limited(() => runApp(file, version, engine));
    }));
  }
}

for (const { name: engine, skip } of engines) {
  for (const version of API_VERSIONS) {
    test(`${engine}: API ${version}`, { skip }, async (t) => {
      const app = apps.get(version)!;
      const lines = new Map<string, Line>();
      for (const r of await Promise.all(runs.get(`${engine} ${version}`)!)) {
        if (r.status !== 0) runFailed = true;
        assert.equal(r.status, 0, `beacon run failed (the app is kept in ${r.file}; too big for the heap? ` +
          `see APP_SOURCE_MAX):\n${r.stderr}`);
        for (const [id, line] of parseOutput(r.stdout)) lines.set(id, line);
      }

      await t.test('names exist in exactly their versions', () => {
        const wrong: string[] = [];
        for (const [id, name] of app.names) {
          const l = lines.get(id);
          const type = l?.ok ? (JSON.parse(l.result ?? '""') as string) : undefined;
          const expected = index.names[name].includes(version);
          if (type === undefined) wrong.push(`${name}: ${describeLine(l)}`);
          else if (expected && type === 'undefined') wrong.push(`${name}: missing`);
          else if (!expected && type !== 'undefined') wrong.push(`${name}: present (${type}), but not in ${version}`);
        }
        assert.deepEqual(wrong, []);
      });

      await t.test('namespaces and handles hold nothing else', () => {
        const wrong: string[] = [];
        for (const [id, owner] of app.owners) {
          const l = lines.get(id);
          if (!l?.ok) {
            wrong.push(`${owner}: ${describeLine(l)}`);
            continue;
          }
          const actual = JSON.parse(l.result ?? '[]') as string[];
          const expected = Object.keys(index.names)
            .filter((n) => n.startsWith(`${owner}.`) && !n.slice(owner.length + 1).includes('.'))
            .filter((n) => index.names[n].includes(version))
            .map((n) => n.slice(owner.length + 1))
            .sort();
          if (JSON.stringify(actual) !== JSON.stringify(expected)) {
            wrong.push(`${owner}: has [${actual.join(', ')}], expected [${expected.join(', ')}]`);
          }
        }
        assert.deepEqual(wrong, []);
      });

      const byFunction = new Map<string, PlannedCase[]>();
      for (const pc of app.cases) byFunction.set(pc.f.name, [...(byFunction.get(pc.f.name) ?? []), pc]);
      for (const [name, planned] of byFunction) {
        await t.test(name, () => {
          const wrong: string[] = [];
          for (const pc of planned) {
            const l = lines.get(pc.id);
            const why = pc.kind === 'valid'
              ? judgeValid(pc.f, pc.c as ValidCase, version, l)
              : judgeReject(pc.f, pc.c as RejectCase, l);
            if (why) wrong.push(`${pc.kind} (${pc.c.args})${pc.c.this ? ` on ${pc.c.this}` : ''}: ${why}`);
          }
          assert.deepEqual(wrong, []);
        });
      }

      // Documented rejections that wait for behaviour: visible as todo, not silently dropped.
      for (const [name, entry] of Object.entries(table.functions)) {
        const f = functions.get(name);
        if (!f) continue;
        for (const p of entry.pending ?? []) {
          if (!caseVersions(f, p).includes(version)) continue;
          await t.test(`${name}: ${p.error}${p.message ? ` '${p.message}'` : ''}`, { todo: p.why }, () => {});
        }
      }
    });
  }
}
