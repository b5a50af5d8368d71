// Checks of the app's sources that the type checker does not make, run on every module as a
// TypeScript transformer (so it sees the program's symbols and types):
//
//   every module   language features that cannot be lowered to what the device runs: regular
//                  expression features beyond ES5 (flags other than g, i, m; named groups;
//                  lookbehind), BigInt, private names (#x), async generators and for await,
//                  globalThis, import.meta, dynamic import()
//   .js modules    (not type-checked) built-ins the API version does not have, e.g. Object.values
//                  or, before 0.2.6, Map; API names of other versions (timers.count in 0.0.9);
//                  for...of over something known not to be an array
//
// In .ts modules a missing built-in is already a type error (the lib lists only what the device
// has); diagnostics.ts/hints make its message name the API version.
import * as ts from 'typescript';
import { ApiVersion } from '../codegen/versions';
import { apiMemberProblem, apiVersionHint, apiVersionsOf } from './apiIndex';
import { lookupGlobal, lookupMember } from './builtinCatalog';
import { isDeviceLib } from './deviceLib';
import { Diagnostic } from './diagnostics';
import { builtinHint } from './hints';

export const CODE_BUILTIN = 'BEACON1001';
export const CODE_FEATURE = 'BEACON1003';

/** Problems of a regular expression for an ES5 engine, one phrase each. */
export function regexProblems(pattern: string, flags: string): string[] {
  const found: string[] = [];
  for (const f of flags) if (!'gim'.includes(f)) found.push(`the '${f}' flag`);
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      if (!inClass && pattern[i + 1] === 'k' && pattern[i + 2] === '<') found.push('a named backreference (\\k<name>)');
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') inClass = true;
    else if (c === '(' && pattern.startsWith('(?<=', i)) found.push('lookbehind (?<=...)');
    else if (c === '(' && pattern.startsWith('(?<!', i)) found.push('negative lookbehind (?<!...)');
    else if (c === '(' && pattern.startsWith('(?<', i)) found.push('a named group (?<name>...)');
  }
  return [...new Set(found)];
}

/**
 * Annex B syntax of a pattern: what JerryScript accepts (web compatibility, ECMA-262 Annex B.1.2)
 * and Duktape refuses or reads otherwise, found by the engine differential test. Refused on both
 * engines, so an app does not build for one and fail, or match differently, on the other.
 */
export function regexAnnexBProblems(pattern: string): string[] {
  const found: string[] = [];
  const hex = (from: number, n: number): boolean => /^[0-9a-fA-F]+$/.test(pattern.slice(from, from + n)) && pattern.length >= from + n;
  let inClass = false;
  let afterLookahead = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    const wasLookahead = afterLookahead;
    afterLookahead = false;
    if (c === '\\') {
      const n = pattern[i + 1] ?? '';
      if (n === '8' || n === '9') found.push(`the escape \\${n} (write ${n} or \\x3${n})`);
      else if (n === '0' && /[0-9]/.test(pattern[i + 2] ?? '')) found.push('an octal escape (\\0 followed by a digit; write \\x..)');
      else if (inClass && /[1-7]/.test(n)) found.push('an octal escape in a class (write \\x..)');
      else if (n === 'c' && !/[a-zA-Z]/.test(pattern[i + 2] ?? '')) found.push('\\c without a control letter');
      else if (n === 'x' && !hex(i + 2, 2)) found.push('\\x without two hex digits');
      else if (n === 'u' && !hex(i + 2, 4)) found.push('\\u without four hex digits');
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') inClass = true;
    else if (c === '{' && !/^\{\d+(,\d*)?\}/.test(pattern.slice(i))) found.push("a '{' that starts no quantifier (write \\{)");
    else if (c === ')') {
      // Was the group a lookahead? Find its opening parenthesis.
      let depth = 0;
      for (let j = i - 1; j >= 0; j--) {
        if (pattern[j] === ')' && pattern[j - 1] !== '\\') depth++;
        if (pattern[j] === '(' && pattern[j - 1] !== '\\') {
          if (depth === 0) {
            afterLookahead = pattern.startsWith('(?=', j) || pattern.startsWith('(?!', j);
            break;
          }
          depth--;
        }
      }
    } else if (wasLookahead && /[*+?{]/.test(c)) found.push('a quantified lookahead ((?=...)+)');
  }
  return [...new Set(found)];
}

function annexBMessage(problems: readonly string[]): string {
  return `regular expression uses ${problems.join(', ')}: Annex B syntax, which JerryScript (the device) accepts and Duktape (the simulator) refuses or reads differently`;
}

function regexMessage(problems: readonly string[]): string {
  return `regular expression uses ${problems.join(', ')}, which the device does not have (its regular expressions are ES5: flags g, i, m only)`;
}

export interface LanguageCheckOptions {
  api: ApiVersion;
  report: (d: Diagnostic) => void;
}

function isJsFile(sf: ts.SourceFile): boolean {
  return /\.[cm]?jsx?$/.test(sf.fileName);
}

/** Whether an identifier stands for a value reference (not a declaration, property name, label). */
function isValueReference(id: ts.Identifier): boolean {
  const p = id.parent;
  if (!p) return false;
  if (ts.isPropertyAccessExpression(p) && p.name === id) return false;
  if (ts.isQualifiedName(p) && p.right === id) return false;
  if (ts.isPropertyAssignment(p) && p.name === id) return false;
  if (
    (ts.isVariableDeclaration(p) ||
      ts.isFunctionDeclaration(p) ||
      ts.isFunctionExpression(p) ||
      ts.isClassDeclaration(p) ||
      ts.isClassExpression(p) ||
      ts.isParameter(p) ||
      ts.isBindingElement(p) ||
      ts.isMethodDeclaration(p) ||
      ts.isPropertyDeclaration(p) ||
      ts.isGetAccessor(p) ||
      ts.isSetAccessor(p) ||
      ts.isEnumMember(p) ||
      ts.isImportSpecifier(p) ||
      ts.isImportClause(p) ||
      ts.isNamespaceImport(p) ||
      ts.isExportSpecifier(p)) &&
    (p as ts.NamedDeclaration).name === id
  ) {
    return false;
  }
  if (ts.isBindingElement(p) && p.propertyName === id) return false;
  if (ts.isLabeledStatement(p) || ts.isBreakOrContinueStatement(p)) return false;
  return true;
}

/** Whether the symbol comes only from lib files (the device lib or TypeScript's built-ins). */
function isLibSymbol(program: ts.Program, sym: ts.Symbol): boolean {
  const decls = sym.declarations ?? [];
  return decls.every((d) => {
    const f = d.getSourceFile();
    return isDeviceLib(f.fileName) || program.isSourceFileDefaultLibrary(f);
  });
}

export function languageChecker(
  program: ts.Program,
  opts: LanguageCheckOptions,
): ts.TransformerFactory<ts.SourceFile> {
  const checker = program.getTypeChecker();
  const { api } = opts;

  const check = (sf: ts.SourceFile): void => {
    const js = isJsFile(sf);
    const report = (node: ts.Node, code: string, message: string): void => {
      const { line, character } = sf.getLineAndCharacterOfPosition(node.getStart(sf));
      opts.report({ severity: 'error', file: sf.fileName, line: line + 1, column: character + 1, code, message });
    };

    /** The lib interface a value's type comes from ("ObjectConstructor", "Array"), if any. */
    const libInterfaceOf = (expr: ts.Expression): { iface: string; type: ts.Type } | undefined => {
      const type = checker.getApparentType(checker.getTypeAtLocation(expr));
      if (type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return undefined;
      if (type.isUnion() || type.isIntersection()) return undefined;
      const sym = type.getSymbol();
      if (!sym || !isLibSymbol(program, sym)) return undefined;
      return { iface: sym.getName(), type };
    };

    const checkRegex = (node: ts.Node, pattern: string, flags: string): void => {
      const problems = regexProblems(pattern, flags);
      if (problems.length > 0) report(node, CODE_FEATURE, regexMessage(problems));
      const annexB = regexAnnexBProblems(pattern);
      if (annexB.length > 0) report(node, CODE_FEATURE, annexBMessage(annexB));
    };

    const visit = (node: ts.Node): void => {
      switch (node.kind) {
        case ts.SyntaxKind.RegularExpressionLiteral: {
          const text = node.getText(sf);
          const slash = text.lastIndexOf('/');
          checkRegex(node, text.slice(1, slash), text.slice(slash + 1));
          break;
        }
        case ts.SyntaxKind.NewExpression:
        case ts.SyntaxKind.CallExpression: {
          const call = node as ts.CallExpression | ts.NewExpression;
          if (call.expression.kind === ts.SyntaxKind.ImportKeyword) {
            report(node, CODE_FEATURE, 'dynamic import() is not supported: the app is one script on the device; import the module statically');
            break;
          }
          const args = call.arguments ?? ts.factory.createNodeArray();
          if (
            ts.isIdentifier(call.expression) &&
            call.expression.text === 'RegExp' &&
            args.length > 0 &&
            ts.isStringLiteralLike(args[0]) &&
            (args.length < 2 || ts.isStringLiteralLike(args[1]))
          ) {
            const sym = checker.getSymbolAtLocation(call.expression);
            if (!sym || isLibSymbol(program, sym)) {
              checkRegex(node, args[0].text, args.length > 1 ? (args[1] as ts.StringLiteralLike).text : '');
            }
          }
          break;
        }
        case ts.SyntaxKind.BigIntLiteral:
          report(node, CODE_FEATURE, `BigInt is not available on the device (API ${api} numbers are IEEE doubles)`);
          break;
        case ts.SyntaxKind.PrivateIdentifier:
          report(node, CODE_FEATURE, "private names (#name) cannot be lowered to ES5 without WeakMap, which the device does not have; use TypeScript's 'private' modifier");
          break;
        case ts.SyntaxKind.MetaProperty:
          if ((node as ts.MetaProperty).keywordToken === ts.SyntaxKind.ImportKeyword) {
            report(node, CODE_FEATURE, 'import.meta has no meaning on the device: the app is one script, not a module');
          }
          break;
        case ts.SyntaxKind.ForOfStatement: {
          const f = node as ts.ForOfStatement;
          if (f.awaitModifier) {
            report(node, CODE_FEATURE, `for await needs async iteration, which the device does not have (API ${api})`);
          } else if (js) {
            const t = checker.getTypeAtLocation(f.expression);
            const known = !(t.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown));
            const arrayLike =
              checker.isArrayType(t) ||
              checker.isTupleType(t) ||
              (t.flags & ts.TypeFlags.StringLike) !== 0 ||
              (t.isUnion() && t.types.every((u) => checker.isArrayType(u) || checker.isTupleType(u) || (u.flags & ts.TypeFlags.StringLike) !== 0));
            if (known && !arrayLike) {
              report(
                f.expression,
                CODE_FEATURE,
                `for...of over '${checker.typeToString(t)}' needs iteration, which the device does not have (API ${api}): for...of works on arrays and strings`,
              );
            }
          }
          break;
        }
        case ts.SyntaxKind.FunctionDeclaration:
        case ts.SyntaxKind.FunctionExpression:
        case ts.SyntaxKind.MethodDeclaration: {
          const f = node as ts.FunctionLikeDeclaration;
          if (f.asteriskToken && f.modifiers?.some((m) => m.kind === ts.SyntaxKind.AsyncKeyword)) {
            report(f.name ?? node, CODE_FEATURE, `async generators need async iteration, which the device does not have (API ${api}); use an async function or a plain generator`);
          }
          break;
        }
        case ts.SyntaxKind.Identifier: {
          const id = node as ts.Identifier;
          if (!isValueReference(id)) break;
          if (id.text === 'globalThis') {
            const sym = checker.getSymbolAtLocation(id);
            if (!sym || isLibSymbol(program, sym) || (sym.declarations ?? []).length === 0) {
              report(id, CODE_BUILTIN, `globalThis (ES2020) is not available on the device (API ${api}); top-level 'this' of a script is the global object`);
            }
            break;
          }
          if (js && !checker.getSymbolAtLocation(id)) {
            const hint = apiVersionHint(id.text, api) ?? (lookupGlobal(id.text) ? builtinHint(id.text, api) : undefined);
            if (hint) report(id, CODE_BUILTIN, hint);
          }
          break;
        }
        case ts.SyntaxKind.PropertyAccessExpression:
        case ts.SyntaxKind.ElementAccessExpression: {
          if (!js) break;
          const access = node as ts.PropertyAccessExpression | ts.ElementAccessExpression;
          const nameNode = ts.isPropertyAccessExpression(access) ? access.name : access.argumentExpression;
          if (!ts.isIdentifier(nameNode) && !ts.isStringLiteral(nameNode)) break;
          const member = nameNode.text;
          const ns = checker.getSymbolAtLocation(access.expression);
          if (ns && ns.flags & ts.SymbolFlags.Namespace && !checker.getPropertyOfType(checker.getTypeAtLocation(access.expression), member)) {
            // A member of another version says which; one of none is a typo the device would
            // only find at run time ("undefined not callable"): refused here with the closest
            // names.
            const owner = checker.getFullyQualifiedName(ns);
            const hint = apiVersionsOf(owner) ? apiMemberProblem(owner, member, api) : apiVersionHint(`${owner}.${member}`, api);
            if (hint) report(nameNode, CODE_BUILTIN, hint);
            break;
          }
          const lib = libInterfaceOf(access.expression);
          if (!lib || checker.getPropertyOfType(lib.type, member)) break;
          const info = lookupMember(lib.iface, member);
          if (info) {
            report(nameNode, CODE_BUILTIN, `${info.name} (${info.edition}) is not available on the device (API ${api})`);
          }
          break;
        }
        default:
          break;
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  };

  return () => (sf) => {
    if (!sf.isDeclarationFile) check(sf);
    return sf;
  };
}
