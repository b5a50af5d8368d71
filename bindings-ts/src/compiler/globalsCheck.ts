// Rejects run-time uses of built-ins that the lib files declare but the target API version does
// not have (see languageLevel.ts). Runs as a TypeScript transformer so it sees the program's
// symbols: a local `Map` class is fine, the global one is not.
import * as ts from 'typescript';
import { Diagnostic } from './diagnostics';

export function unavailableGlobalsChecker(
  program: ts.Program,
  unavailable: ReadonlyMap<string, string>,
  report: (d: Diagnostic) => void,
): ts.TransformerFactory<ts.SourceFile> {
  const checker = program.getTypeChecker();

  const isLibSymbol = (sym: ts.Symbol): boolean => {
    const decls = sym.declarations ?? [];
    return decls.length > 0 && decls.every((d) => program.isSourceFileDefaultLibrary(d.getSourceFile()));
  };

  const check = (sf: ts.SourceFile): void => {
    const visit = (node: ts.Node): void => {
      if (ts.isExpressionWithTypeArguments(node)) {
        // `class A extends Map` uses the value; `implements`/interface `extends` do not.
        const clause = node.parent;
        if (
          ts.isHeritageClause(clause) &&
          clause.token === ts.SyntaxKind.ExtendsKeyword &&
          ts.isClassLike(clause.parent)
        ) {
          visit(node.expression);
        }
        return;
      }
      if (ts.isTypeNode(node)) return; // type positions cost nothing at run time
      if (ts.isIdentifier(node) && unavailable.has(node.text)) {
        const sym = checker.getSymbolAtLocation(node);
        if (sym && isLibSymbol(sym)) {
          const { line, character } = sf.getLineAndCharacterOfPosition(node.getStart(sf));
          report({
            severity: 'error',
            file: sf.fileName,
            line: line + 1,
            column: character + 1,
            code: 'BEACON1001',
            message: unavailable.get(node.text) as string,
          });
        }
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
