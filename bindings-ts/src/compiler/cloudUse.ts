// Whether an app's source refers to the device API's `cloud` or `sync` objects: `beacon run`
// starts a cloud for apps that use it. Found at build time (CompileResult.usesCloud, kept in the
// build cache with the package), because it needs TypeScript's scanner.
import * as ts from 'typescript';

/**
 * Whether a source refers to the device API's `cloud` or `sync` objects. The app's modules are
 * tokenised with TypeScript's scanner (already the compiler's, and it knows strings, comments and
 * regular expressions), so `print('sync ok')`, `x.cloud` or `{cloud: 1}` does not count; a local
 * variable named `cloud` does, which only starts a cloud that goes unused.
 */
export function scriptUsesCloud(code: string): boolean {
  const scanner = ts.createScanner(ts.ScriptTarget.ES5, true, ts.LanguageVariant.Standard, code);
  const tokens: { kind: ts.SyntaxKind; text: string }[] = [];
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    const prev = tokens.length > 0 ? tokens[tokens.length - 1].kind : ts.SyntaxKind.Unknown;
    // A slash where an expression cannot have ended starts a regular expression (the scanner
    // alone cannot tell it from a division).
    if ((kind === ts.SyntaxKind.SlashToken || kind === ts.SyntaxKind.SlashEqualsToken) && !ENDS_EXPRESSION.has(prev)) {
      kind = scanner.reScanSlashToken();
    }
    tokens.push({ kind, text: kind === ts.SyntaxKind.Identifier ? scanner.getTokenValue() : '' });
  }
  return tokens.some((tok, i) => {
    if (tok.kind !== ts.SyntaxKind.Identifier || (tok.text !== 'cloud' && tok.text !== 'sync')) return false;
    const prev = i > 0 ? tokens[i - 1].kind : ts.SyntaxKind.Unknown;
    const next = i + 1 < tokens.length ? tokens[i + 1].kind : ts.SyntaxKind.Unknown;
    if (prev === ts.SyntaxKind.DotToken) return false; // a property: x.cloud
    // A key of an object literal: {cloud: 1} or {a: 1, sync: 2}.
    if ((prev === ts.SyntaxKind.OpenBraceToken || prev === ts.SyntaxKind.CommaToken) && next === ts.SyntaxKind.ColonToken) return false;
    return true;
  });
}

/** Tokens after which a slash is a division. */
const ENDS_EXPRESSION = new Set<ts.SyntaxKind>([
  ts.SyntaxKind.Identifier,
  ts.SyntaxKind.NumericLiteral,
  ts.SyntaxKind.StringLiteral,
  ts.SyntaxKind.RegularExpressionLiteral,
  ts.SyntaxKind.CloseParenToken,
  ts.SyntaxKind.CloseBracketToken,
  ts.SyntaxKind.CloseBraceToken,
  ts.SyntaxKind.ThisKeyword,
  ts.SyntaxKind.TrueKeyword,
  ts.SyntaxKind.FalseKeyword,
  ts.SyntaxKind.NullKeyword,
  ts.SyntaxKind.PlusPlusToken,
  ts.SyntaxKind.MinusMinusToken,
]);
