// @ts-check
/**
 * The architecture, enforced: a service never imports another service; a lib never imports a
 * service; a project reaches a lib only through its package entry point (`@atelier/<lib>`),
 * never through relative paths into another project or deep imports of its files.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** @param {string} kind */
function projectNames(kind) {
  const dir = path.join(repoRoot, kind);
  return existsSync(dir)
    ? readdirSync(dir, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => d.name)
    : [];
}

/**
 * @param {string} file absolute path
 * @returns {{ kind: 'services' | 'libs', name: string } | undefined}
 */
function projectOf(file) {
  const relative = path.relative(repoRoot, file).split(path.sep);
  if ((relative[0] === 'services' || relative[0] === 'libs') && relative.length > 2 && relative[1]) {
    return { kind: relative[0], name: relative[1] };
  }
  return undefined;
}

/** @type {import('eslint').Rule.RuleModule} */
export const moduleBoundaries = {
  meta: {
    type: 'problem',
    docs: { description: 'services import only libs and contracts; libs are used through their index' },
    messages: {
      serviceImportsService: 'A service never imports another service ("{{target}}"); share code through libs/ or a gRPC contract.',
      libImportsService: 'A lib never imports a service ("{{target}}").',
      deepImport: 'Import "{{pkg}}" through its entry point, not "{{source}}".',
      crossProjectPath: 'Reach "{{target}}" through its package (@atelier/{{name}}), not a relative path.',
    },
    schema: [],
  },
  create(context) {
    const current = projectOf(context.filename);
    if (!current) return {};
    const here = current;
    const services = new Set(projectNames('services'));
    const libs = new Set(projectNames('libs'));

    /** @param {import('estree').Node} node @param {unknown} value */
    function check(node, value) {
      if (typeof value !== 'string') return;
      if (value.startsWith('.')) {
        const target = projectOf(path.resolve(path.dirname(context.filename), value));
        if (target && (target.kind !== here.kind || target.name !== here.name)) {
          context.report({ node, messageId: 'crossProjectPath', data: { target: `${target.kind}/${target.name}`, name: target.name } });
        }
        return;
      }
      const match = /^@atelier\/([^/]+)(\/.*)?$/.exec(value);
      if (!match) return;
      const [, name, subpath] = match;
      if (name && services.has(name)) {
        context.report({
          node,
          messageId: here.kind === 'services' ? 'serviceImportsService' : 'libImportsService',
          data: { target: value },
        });
      } else if (name && libs.has(name) && subpath) {
        context.report({ node, messageId: 'deepImport', data: { pkg: `@atelier/${name}`, source: value } });
      }
    }

    return {
      ImportDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
    };
  },
};

export default { rules: { 'module-boundaries': moduleBoundaries } };
