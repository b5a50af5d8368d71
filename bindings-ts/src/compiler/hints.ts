// Type errors about names the API version lacks, made to say so. TypeScript's own text for a
// missing built-in suggests changing the 'lib' option, which is no help to a micro-app author:
// the lib is the device's. Here such messages keep TypeScript's first sentence and gain the
// reason, e.g.
//
//   Property 'count' does not exist on type 'typeof timers' — timers.count is in API 0.2.6, not 0.0.9
//   Property 'values' does not exist on type 'ObjectConstructor' — Object.values (ES2017) is not available on the device (API 0.2.6)
//   Cannot find name 'Map' — Map is in API 0.2.6, not 0.1.5
import * as ts from 'typescript';
import { ApiVersion } from '../codegen/versions';
import { apiVersionHint, joinVersions } from './apiIndex';
import { lookupGlobal, lookupMember } from './builtinCatalog';
import { Diagnostic } from './diagnostics';
import { describeLanguage, versionsWithBuiltin } from './languageLevel';

/** Why a built-in global is missing in `api`, or undefined when it is not a built-in. */
export function builtinHint(name: string, api: ApiVersion): string | undefined {
  const versions = versionsWithBuiltin(name);
  if (versions.length > 0) return versions.includes(api) ? undefined : `${name} is in API ${joinVersions(versions)}, not ${api}`;
  const info = lookupGlobal(name);
  if (info) return `${info.name} (${info.edition}) is not available on the device (API ${api} has ${describeLanguage(api)})`;
  return undefined;
}

// TypeScript diagnostic codes handled here.
const NAME_CODES = new Set([2304, 2552, 2583, 2585]); // cannot find name; only refers to a type
const PROPERTY_CODES = new Set([2339, 2550, 2551]); // property does not exist (did you mean)
const ITERATION_CODES = new Set([2802, 2495, 2461, 2488, 2549, 2569]); // not an array type; needs iteration
const NAMESPACE_MEMBER_CODES = new Set([2694, 2724]); // namespace has no exported member

/**
 * Codes the language check (languageCheck.ts) covers with its own, clearer messages: TypeScript's
 * versions of them are dropped. 1501/1503: regular expression features; 2737: BigInt literals;
 * 18028: private names; 2318 for the async iteration types: async generators.
 */
export function supersededByLanguageCheck(d: Diagnostic): boolean {
  const n = Number(d.code?.replace(/^TS/, ''));
  if (n === 1501 || n === 1503 || n === 2737 || n === 18028) return true;
  return n === 2318 && /'Async(Iterable|Iterator|Generator)/.test(d.message);
}

/** TypeScript's first sentence, without its advice to change the lib or target. */
function firstSentence(message: string): string {
  const firstLine = message.split('\n')[0];
  return firstLine
    .replace(/\s*Do you need to change your target library\?.*$/, '')
    .replace(/\s*Did you mean .*$/, '')
    .replace(/\.$/, '');
}

function nodeAt(sf: ts.SourceFile, line: number, column: number): ts.Node | undefined {
  let pos: number;
  try {
    pos = sf.getPositionOfLineAndCharacter(line - 1, column - 1);
  } catch {
    return undefined;
  }
  let found: ts.Node | undefined;
  const visit = (node: ts.Node): void => {
    if (pos < node.getStart(sf) || pos >= node.getEnd()) return;
    found = node;
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

/** "timers" for `typeof timers`, "ble.build" for nested namespaces, "SingleTimer" for handles. */
function apiOwnerName(checker: ts.TypeChecker, expr: ts.Node): string | undefined {
  const sym = checker.getSymbolAtLocation(expr);
  if (sym && sym.flags & ts.SymbolFlags.Namespace) return checker.getFullyQualifiedName(sym).replace(/^"[^"]*"\./, '');
  const type = checker.getTypeAtLocation(expr);
  const tsym = type.aliasSymbol ?? type.getSymbol();
  return tsym ? tsym.getName() : undefined;
}

export interface HintContext {
  api: ApiVersion;
  /** The program the diagnostics came from, when the type checker ran. */
  program?: ts.Program;
}

function propertyHint(d: Diagnostic, member: string, ctx: HintContext): string | undefined {
  const program = ctx.program;
  const sf = d.file && program ? program.getSourceFile(d.file) : undefined;
  if (program && sf && d.line !== undefined && d.column !== undefined) {
    const node = nodeAt(sf, d.line, d.column);
    const access = node?.parent;
    if (access && (ts.isPropertyAccessExpression(access) || ts.isQualifiedName(access))) {
      const checker = program.getTypeChecker();
      const receiver = ts.isPropertyAccessExpression(access) ? access.expression : access.left;
      const owner = apiOwnerName(checker, receiver);
      if (owner) {
        const hint = apiVersionHint(`${owner}.${member}`, ctx.api);
        if (hint) return hint;
      }
      const type = checker.getApparentType(checker.getTypeAtLocation(receiver as ts.Node));
      const iface = type.getSymbol()?.getName();
      const info = iface ? lookupMember(iface, member) : undefined;
      if (info) return `${info.name} (${info.edition}) is not available on the device (API ${ctx.api})`;
    }
  }
  // Without the program: the type as TypeScript printed it.
  const t = /on type '(?:typeof )?([^']+)'/.exec(d.message)?.[1];
  if (t) {
    const hint = apiVersionHint(`${t}.${member}`, ctx.api);
    if (hint) return hint;
    const iface = /\[\]$/.test(t) ? 'Array' : /^(string|"|`)/.test(t) ? 'String' : t === 'number' ? 'Number' : t.replace(/<.*$/, '');
    const info = lookupMember(iface, member);
    if (info) return `${info.name} (${info.edition}) is not available on the device (API ${ctx.api})`;
  }
  return undefined;
}

/** The diagnostic with a message that names the API version, when it is about one. */
export function withHint(d: Diagnostic, ctx: HintContext): Diagnostic {
  const n = Number(d.code?.replace(/^TS/, ''));
  if (!Number.isFinite(n)) return d;
  let hint: string | undefined;
  if (NAME_CODES.has(n)) {
    const name = /^(?:Cannot find name '([^']+)'|'([^']+)' only refers to a type)/.exec(d.message);
    const id = name?.[1] ?? name?.[2];
    if (id) hint = apiVersionHint(id, ctx.api) ?? builtinHint(id, ctx.api);
  } else if (PROPERTY_CODES.has(n)) {
    const member = /^Property '([^']+)' does not exist/.exec(d.message)?.[1];
    if (member) hint = propertyHint(d, member, ctx);
  } else if (NAMESPACE_MEMBER_CODES.has(n)) {
    const m = /^Namespace '([^']+)' has no exported member '([^']+)'/.exec(d.message);
    if (m) hint = apiVersionHint(`${m[1].replace(/^"[^"]*"\./, '')}.${m[2]}`, ctx.api);
  } else if (ITERATION_CODES.has(n)) {
    const t = /Type '(.+?)'(?: is not| can only| must)/.exec(d.message)?.[1];
    hint = `iterating${t ? ` over '${t}'` : ''} needs the iteration protocol, which the device does not have (API ${ctx.api}): for...of, spread and destructuring work on arrays and strings`;
  }
  if (!hint) return d;
  return { ...d, message: `${firstSentence(d.message)} — ${hint}` };
}
