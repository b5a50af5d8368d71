// Every built-in that ECMAScript 2015 and later define, with the edition that brought it, read
// from TypeScript's lib files. Messages use it to say what an app reached for ("Object.values
// (ES2017)") when the device's lib does not have it; the check of JavaScript apps, which are not
// type-checked, uses it to tell a missing built-in from an app's own global.
import * as fs from 'fs';
import * as path from 'path';
import * as ts from 'typescript';

export interface BuiltinInfo {
  /** As authors write it: "Map", "Object.values", "Array.prototype.includes". */
  readonly name: string;
  /** "ES2015" ... "ESNext", or "ECMA-402" for Intl. */
  readonly edition: string;
}

interface Catalog {
  globals: Map<string, BuiltinInfo>;
  /** Keyed by lib interface name, then member name. */
  members: Map<string, Map<string, BuiltinInfo>>;
}

let catalog: Catalog | undefined;

function editionOf(file: string): string | undefined {
  const m = /^lib\.(es20\d\d|esnext)\.([a-z.]+)\.d\.ts$/.exec(file);
  if (!m || m[2] === 'full') return undefined;
  if (m[2] === 'intl') return 'ECMA-402';
  return m[1] === 'esnext' ? 'ESNext' : m[1].toUpperCase();
}

/** Interfaces that type a global object of the same name (Math, JSON): their members are static. */
function staticInterfaces(sf: ts.SourceFile, into: Set<string>): void {
  for (const st of sf.statements) {
    if (!ts.isVariableStatement(st)) continue;
    for (const d of st.declarationList.declarations) {
      if (ts.isIdentifier(d.name) && d.type && ts.isTypeReferenceNode(d.type) && ts.isIdentifier(d.type.typeName)) {
        if (d.type.typeName.text === d.name.text) into.add(d.name.text);
      }
    }
  }
}

/** Display name of member `m` of lib interface `iface`. */
export function memberDisplayName(iface: string, member: string, statics: ReadonlySet<string> = STATIC_DEFAULT): string {
  if (iface.endsWith('Constructor')) return `${iface.slice(0, -'Constructor'.length)}.${member}`;
  if (statics.has(iface)) return `${iface}.${member}`;
  return `${iface}.prototype.${member}`;
}

const STATIC_DEFAULT: ReadonlySet<string> = new Set(['Math', 'JSON', 'Atomics', 'Reflect', 'Intl']);

function load(): Catalog {
  const dir = path.dirname(require.resolve('typescript'));
  const globals = new Map<string, BuiltinInfo>();
  const members = new Map<string, Map<string, BuiltinInfo>>();
  const files = fs
    .readdirSync(dir)
    .map((f) => ({ f, edition: editionOf(f) }))
    .filter((x): x is { f: string; edition: string } => x.edition !== undefined)
    // Earliest edition first, so a name keeps the edition that introduced it.
    .sort((a, b) => (a.edition === b.edition ? 0 : a.edition < b.edition ? -1 : 1));
  const parsed = files.map(({ f, edition }) => ({
    edition,
    sf: ts.createSourceFile(f, fs.readFileSync(path.join(dir, f), 'utf8'), ts.ScriptTarget.Latest, true),
  }));
  const statics = new Set(STATIC_DEFAULT);
  for (const { sf } of parsed) staticInterfaces(sf, statics);
  globals.set('Intl', { name: 'Intl', edition: 'ECMA-402' });
  globals.set('globalThis', { name: 'globalThis', edition: 'ES2020' });

  const addGlobal = (name: string, edition: string): void => {
    if (!globals.has(name)) globals.set(name, { name, edition });
  };
  for (const { sf, edition } of parsed) {
    for (const st of sf.statements) {
      if (ts.isVariableStatement(st)) {
        for (const d of st.declarationList.declarations) if (ts.isIdentifier(d.name)) addGlobal(d.name.text, edition);
      } else if ((ts.isFunctionDeclaration(st) || ts.isModuleDeclaration(st)) && st.name && ts.isIdentifier(st.name)) {
        addGlobal(st.name.text, edition);
        if (ts.isModuleDeclaration(st) && st.body && ts.isModuleBlock(st.body)) {
          // namespace Reflect { function get(...) }: its functions are members.
          for (const inner of st.body.statements) {
            if (ts.isFunctionDeclaration(inner) && inner.name) addMember(st.name.text, inner.name.text, edition);
          }
        }
      } else if (ts.isInterfaceDeclaration(st)) {
        for (const m of st.members) {
          const n = m.name;
          if (n && (ts.isIdentifier(n) || ts.isStringLiteral(n))) addMember(st.name.text, n.text, edition);
        }
      }
    }
  }
  return { globals, members };

  function addMember(iface: string, member: string, edition: string): void {
    let byName = members.get(iface);
    if (!byName) members.set(iface, (byName = new Map()));
    if (!byName.has(member)) byName.set(member, { name: memberDisplayName(iface, member, statics), edition });
  }
}

function get(): Catalog {
  catalog ??= load();
  return catalog;
}

/** A global that ES2015 or later (or ECMA-402) defines. */
export function lookupGlobal(name: string): BuiltinInfo | undefined {
  return get().globals.get(name);
}

/** A member that ES2015 or later adds to a built-in, by lib interface name ("ObjectConstructor"). */
export function lookupMember(iface: string, member: string): BuiltinInfo | undefined {
  return get().members.get(iface)?.get(member);
}
