// What the declaration reader takes from JSDoc and from literal type arguments: tag texts, the
// doc comment, and the literal values of `Int<0, 255>`-style arguments and enum initialisers.
import ts from 'typescript';

/** Text of every JSDoc tag of that name on the node. */
export function tagsNamed(node: ts.Node, name: string): string[] {
  return ts
    .getJSDocTags(node)
    .filter((t) => t.tagName.text === name)
    .map((t) => ts.getTextOfJSDocComment(t.comment) ?? '');
}

export function docText(node: ts.Node): string {
  const docs = ts.getJSDocCommentsAndTags(node).filter(ts.isJSDoc);
  const last = docs[docs.length - 1];
  return last ? (ts.getTextOfJSDocComment(last.comment) ?? '').trim() : '';
}

export function literalValue(node: ts.Node, fail: (n: ts.Node, m: string) => never): number | string | boolean {
  if (ts.isLiteralTypeNode(node)) return literalValue(node.literal, fail);
  if (ts.isNumericLiteral(node)) return Number(node.text);
  if (ts.isStringLiteral(node)) return node.text;
  if (node.kind === ts.SyntaxKind.TrueKeyword) return true;
  if (node.kind === ts.SyntaxKind.FalseKeyword) return false;
  if (ts.isPrefixUnaryExpression(node) && node.operator === ts.SyntaxKind.MinusToken &&
      ts.isNumericLiteral(node.operand)) {
    return -Number(node.operand.text);
  }
  return fail(node, `expected a literal, found ${node.getText()}`);
}
