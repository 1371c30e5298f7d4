// @ts-check
/**
 * The visitor every import rule of the workspace needs: `check` is called with each module
 * specifier a file names — import, export … from, export * from, and a literal import().
 * @param {(node: import('estree').Node, source: unknown) => void} check
 * @returns {import('eslint').Rule.RuleListener}
 */
export function onImportSources(check) {
  return {
    ImportDeclaration: (node) => check(node, node.source.value),
    ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
    ExportAllDeclaration: (node) => check(node, node.source.value),
    ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
  };
}
