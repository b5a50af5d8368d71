// Verifies that a script uses ES5.1 syntax only. The bundle is checked before it is packed: app
// sources are lowered by TypeScript, but bundled library code is not, and the engine would
// otherwise reject it on the device rather than here.
//
// The check parses with TypeScript's parser (which accepts every syntax level) and reports each
// node kind that ES5.1 does not have. It expects syntactically valid input.
import * as ts from 'typescript';
import { Diagnostic } from './diagnostics';

function describe(node: ts.Node, sf: ts.SourceFile): string | undefined {
  switch (node.kind) {
    case ts.SyntaxKind.VariableDeclarationList: {
      const flags = (node as ts.VariableDeclarationList).flags;
      // AwaitUsing shares its bit with Const, so `using` is tested first.
      if (flags & ts.NodeFlags.Using) return 'using declaration';
      if (flags & ts.NodeFlags.Const) return 'const declaration';
      if (flags & ts.NodeFlags.Let) return 'let declaration';
      return undefined;
    }
    case ts.SyntaxKind.ArrowFunction:
      return 'arrow function';
    case ts.SyntaxKind.ClassDeclaration:
    case ts.SyntaxKind.ClassExpression:
      return 'class';
    case ts.SyntaxKind.TemplateExpression:
    case ts.SyntaxKind.NoSubstitutionTemplateLiteral:
    case ts.SyntaxKind.TaggedTemplateExpression:
      return 'template literal';
    case ts.SyntaxKind.ObjectBindingPattern:
    case ts.SyntaxKind.ArrayBindingPattern:
      return 'destructuring';
    case ts.SyntaxKind.BinaryExpression: {
      const b = node as ts.BinaryExpression;
      const op = b.operatorToken.kind;
      if (
        op === ts.SyntaxKind.EqualsToken &&
        (ts.isObjectLiteralExpression(b.left) || ts.isArrayLiteralExpression(b.left))
      ) {
        return 'destructuring assignment';
      }
      if (op === ts.SyntaxKind.AsteriskAsteriskToken || op === ts.SyntaxKind.AsteriskAsteriskEqualsToken) {
        return 'exponent operator';
      }
      if (op === ts.SyntaxKind.QuestionQuestionToken) return 'nullish coalescing';
      if (
        op === ts.SyntaxKind.QuestionQuestionEqualsToken ||
        op === ts.SyntaxKind.BarBarEqualsToken ||
        op === ts.SyntaxKind.AmpersandAmpersandEqualsToken
      ) {
        return 'logical assignment';
      }
      return undefined;
    }
    case ts.SyntaxKind.SpreadElement:
    case ts.SyntaxKind.SpreadAssignment:
      return 'spread';
    case ts.SyntaxKind.Parameter: {
      const p = node as ts.ParameterDeclaration;
      if (p.dotDotDotToken) return 'rest parameter';
      if (p.initializer) return 'default parameter';
      return undefined;
    }
    case ts.SyntaxKind.ForOfStatement:
      return 'for...of';
    case ts.SyntaxKind.ComputedPropertyName:
      return 'computed property name';
    case ts.SyntaxKind.ShorthandPropertyAssignment:
      return 'shorthand property';
    case ts.SyntaxKind.MethodDeclaration:
      return 'method shorthand';
    case ts.SyntaxKind.FunctionDeclaration:
    case ts.SyntaxKind.FunctionExpression: {
      const f = node as ts.FunctionDeclaration | ts.FunctionExpression;
      if (f.asteriskToken) return 'generator';
      if (f.modifiers?.some((m) => m.kind === ts.SyntaxKind.AsyncKeyword)) return 'async function';
      return undefined;
    }
    case ts.SyntaxKind.AwaitExpression:
      return 'await';
    case ts.SyntaxKind.YieldExpression:
      return 'yield';
    case ts.SyntaxKind.ImportDeclaration:
    case ts.SyntaxKind.ImportEqualsDeclaration:
      return 'import';
    case ts.SyntaxKind.ExportDeclaration:
    case ts.SyntaxKind.ExportAssignment:
    case ts.SyntaxKind.ExportKeyword: // export var/function, as a modifier
      return 'export';
    case ts.SyntaxKind.MetaProperty:
      return 'new.target/import.meta';
    case ts.SyntaxKind.CallExpression: {
      const c = node as ts.CallExpression;
      if (c.expression.kind === ts.SyntaxKind.ImportKeyword) return 'dynamic import';
      if (c.questionDotToken) return 'optional chaining';
      return undefined;
    }
    case ts.SyntaxKind.PropertyAccessExpression:
    case ts.SyntaxKind.ElementAccessExpression:
      return (node as ts.PropertyAccessExpression | ts.ElementAccessExpression).questionDotToken
        ? 'optional chaining'
        : undefined;
    case ts.SyntaxKind.PrivateIdentifier:
      return 'private name';
    case ts.SyntaxKind.SuperKeyword:
      return 'super';
    case ts.SyntaxKind.CatchClause:
      return (node as ts.CatchClause).variableDeclaration ? undefined : 'catch without binding';
    case ts.SyntaxKind.BigIntLiteral:
      return 'BigInt literal';
    case ts.SyntaxKind.NumericLiteral: {
      const text = node.getText(sf);
      if (/^0[bBoO]/.test(text)) return 'binary/octal literal';
      if (text.includes('_')) return 'numeric separator';
      return undefined;
    }
    case ts.SyntaxKind.StringLiteral:
      return /\\u\{/.test(node.getText(sf)) ? 'code point escape' : undefined;
    case ts.SyntaxKind.RegularExpressionLiteral: {
      const flags = /\/([a-z]*)$/.exec(node.getText(sf))?.[1] ?? '';
      return /[^gim]/.test(flags) ? `regular expression flag '${flags.replace(/[gim]/g, '')}'` : undefined;
    }
    default:
      return undefined;
  }
}

/** Every use of syntax beyond ES5.1 in `code`, positions relative to `fileName`. */
export function checkEs5Syntax(code: string, fileName: string): Diagnostic[] {
  const sf = ts.createSourceFile(fileName, code, ts.ScriptTarget.ES5, true, ts.ScriptKind.JS);
  const found: Diagnostic[] = [];
  const visit = (node: ts.Node): void => {
    const what = describe(node, sf);
    if (what) {
      const { line, character } = sf.getLineAndCharacterOfPosition(node.getStart(sf));
      found.push({
        severity: 'error',
        file: fileName,
        line: line + 1,
        column: character + 1,
        code: 'BEACON1002',
        message: `${what} is not ES5`,
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}
