// Emits docs/api.md: every function and handle method, the versions that have it, and whether
// the runtime implements its behaviour. "Implemented" is read from the runtime's C sources at
// codegen time (a definition whose body does not call rt_not_implemented), and CI checks the
// file is current, so the table tells the truth at every commit.
import * as fs from 'fs';
import * as path from 'path';
import type { ApiIR, FunctionIR } from './ir';
import { API_VERSIONS } from './versions';

/** The C sources of the runtime, in every folder (one per service) but the generated one. */
function runtimeSources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .flatMap((e) => e.isDirectory()
      ? (e.name === 'generated' ? [] : runtimeSources(path.join(dir, e.name)))
      : e.name.endsWith('.c') ? [path.join(dir, e.name)] : []);
}

/** Natives defined in the runtime sources, mapped to whether their body is a real one. */
export function scanImplemented(runtimeDir: string): Map<string, boolean> {
  const result = new Map<string, boolean>();
  if (!fs.existsSync(runtimeDir)) return result;
  for (const file of runtimeSources(runtimeDir)) {
    const text = fs.readFileSync(file, 'utf8');
    // A definition starts at the beginning of a line: "eng_value_t rt_x(...)\n{"
    const re = /^eng_value_t\s+(rt_[A-Za-z0-9_]+)\s*\([^;{]*\)\s*\{/gm;
    let m: RegExpExecArray | null;
    while ((m = re.exec(text))) {
      const bodyStart = m.index + m[0].length;
      const bodyEnd = text.indexOf('\n}', bodyStart);
      const body = text.slice(bodyStart, bodyEnd < 0 ? undefined : bodyEnd);
      result.set(m[1], !/\brt_not_implemented\s*\(/.test(body));
    }
  }
  return result;
}

/** The runtime's error codes and their texts, read from its table (src/runtime/core/rt_errors.c). */
export function scanErrorCodes(runtimeDir: string): { code: string; text: string; legacy?: string }[] {
  const file = path.join(runtimeDir, 'core', 'rt_errors.c');
  if (!fs.existsSync(file)) return [];
  const out: { code: string; text: string; legacy?: string }[] = [];
  const re = /\{"(ESR\d{4})", "([^"]*)", (NULL|"([^"]*)")\}/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(fs.readFileSync(file, 'utf8')))) out.push({ code: m[1], text: m[2], legacy: m[4] });
  return out;
}

/** Where each family of codes comes from (ESRxxyy: xx is the family). */
const FAMILIES: Record<string, string> = {
  '00': 'system; the spec and the maker\'s error reference',
  '01': 'VM; the spec',
  '02': 'storage; the spec',
  '04': 'modem; the maker\'s error reference',
  '05': 'function call; the product\'s numbers (the reference names the family, its numbers were not at hand)',
  '06': 'cloud synchronisation; the product\'s numbers, as for 05',
  '07': 'type conversion; the product\'s numbers, as for 05',
  '09': 'GNSS; the product\'s numbers, as for 05',
  '17': 'UWB; the spec',
  '18': 'sensors; the spec',
};

/** Who raises the codes no declaration lists: every function's argument checks, and the glue. */
const RAISED_BY: Record<string, string> = {
  ESR0001: 'any call whose cause cannot be told; the error handler',
  ESR0002: 'the error handler, after the app was stopped',
  ESR0005: 'date operations before the clock is synced',
  ESR0501: 'every function and method: an argument of the right type that the call refuses (RangeError)',
  ESR0503: 'every handle method called on another object (TypeError)',
  ESR0701: 'every function and method: an argument of the wrong type (TypeError)',
};

function errorTable(api: ApiIR, codes: { code: string; text: string; legacy?: string }[]): string[] {
  const raisers = new Map<string, Set<string>>();
  const note = (code: string, who: string) => {
    if (!raisers.has(code)) raisers.set(code, new Set());
    raisers.get(code)!.add(who);
  };
  for (const fn of api.functions) {
    if (fn.aliasOf) continue;
    for (const o of fn.overloads) for (const t of o.throws) note(t.code, `\`${fn.owner ? fn.owner + '.' : ''}${fn.name}\``);
  }
  for (const hd of api.handles) {
    for (const m of hd.methods) for (const o of m.overloads) for (const t of o.throws) note(t.code, `\`${hd.name}.${m.name}()\``);
  }
  const rows = codes.map((c) => {
    const who = [...(raisers.get(c.code) ?? [])];
    const by = [RAISED_BY[c.code], who.join(', ')].filter(Boolean).join('; ') || '—';
    const family = FAMILIES[c.code.slice(3, 5)] ?? 'the product';
    const text = c.legacy ? `${c.text} (0.0.9: "${c.legacy}", no code)` : c.text;
    return `| ${c.code} | ${text} | ${family} | ${by} |`;
  });
  return [
    '## Errors',
    '',
    'Every error an app can catch is an object with `code` and a `message` that starts with the',
    'code (`{code: \'ESR0202\', message: \'ESR0202 No storage space: ...\'}`), as the maker\'s error',
    'reference shows them. Argument errors stay `TypeError`/`RangeError` objects and name the',
    'argument. In 0.0.9 the errors the spec lists as uncoded keep their old wording and carry no',
    'code (below, with their 0.0.9 text); every other error is coded in every version. Codes are',
    '`ESRxxyy`, `xx` the family. Read from `src/runtime/core/rt_errors.c` and the `@throws` tags of',
    'the declarations.',
    '',
    '| Code | Message | Family, and where the number comes from | Raised by |',
    '|---|---|---|---|',
    ...rows,
  ];
}

export function emitDocs(api: ApiIR, implemented: Map<string, boolean>,
                         codes: { code: string; text: string; legacy?: string }[] = []): string {
  const rows: string[] = [];
  const row = (name: string, fn: FunctionIR) => {
    const mask = fn.overloads.reduce((m, o) => m | o.mask, 0);
    const versions = API_VERSIONS.map((_, i) => (mask & (1 << i) ? 'yes' : '—'));
    const impl = implemented.get(fn.native);
    const state = impl === undefined ? 'missing' : impl ? 'yes' : 'not yet';
    const deprecated = fn.overloads.some((o) => o.deprecated !== undefined) ? ' (deprecated)' :
      fn.aliasOf ? ` (alias of \`${fn.aliasOf}\`)` : '';
    rows.push(`| \`${name}\`${deprecated} | ${versions.join(' | ')} | ${state} |`);
  };
  for (const fn of api.functions) row(fn.owner ? `${fn.owner}.${fn.name}` : fn.name, fn);
  for (const hd of api.handles) for (const m of hd.methods) row(`${hd.name}.${m.name}()`, m);
  const total = rows.length;
  const done = rows.filter((r) => r.endsWith('| yes |')).length;
  return [
    '# API surface',
    '',
    'Generated by `beacon codegen` from `bindings-ts/api/*.d.ts` and the runtime sources; CI',
    'fails when it is out of date. "Implemented" means the runtime has real behaviour behind the',
    'generated argument checks; "not yet" functions check their arguments, then throw ESR0003.',
    '',
    `${done} of ${total} functions and methods are implemented.`,
    '',
    `| Function | ${API_VERSIONS.join(' | ')} | Implemented |`,
    `|---|${API_VERSIONS.map(() => '---').join('|')}|---|`,
    ...rows,
    '',
    ...(codes.length ? [...errorTable(api, codes), ''] : []),
  ].join('\n');
}
