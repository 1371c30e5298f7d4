// @ts-check
/**
 * A workspace package is imported only through the entry points its package.json exports:
 * `@atelier/<lib>`, never a deep path into its files (`@atelier/<lib>/src/…`), and never a
 * service, which exports none. The tag rules (who may depend on whom, no relative paths into
 * another project) are @nx/enforce-module-boundaries' (module-boundaries.js), but that rule only
 * sees an import it can resolve to a project: a deep path the exports hide, or a service's
 * package name, resolves to none and passes it unchecked.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { onImportSources } from './import-sources.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Each workspace package's name → the subpaths it exports ('.' for the package itself). */
function workspaceEntryPoints() {
  /** @type {Map<string, Set<string>>} */
  const entryPoints = new Map();
  for (const folder of ['libs', 'services']) {
    for (const entry of readdirSync(path.join(repoRoot, folder), { withFileTypes: true })) {
      const manifestPath = path.join(repoRoot, folder, entry.name, 'package.json');
      if (!entry.isDirectory() || !existsSync(manifestPath)) continue;
      const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
      const exports = manifest.exports;
      const subpaths =
        exports === undefined
          ? []
          : typeof exports === 'string' || !Object.keys(exports)[0]?.startsWith('.')
            ? ['.']
            : Object.keys(exports);
      entryPoints.set(manifest.name, new Set(subpaths));
    }
  }
  return entryPoints;
}

/** @type {import('eslint').Rule.RuleModule} */
export const entryPoints = {
  meta: {
    type: 'problem',
    docs: { description: 'workspace packages are imported through the entry points they export' },
    messages: {
      deepImport: 'Import "{{pkg}}" through its entry point, not "{{source}}": export what you need from its index.ts.',
      noEntryPoint: '"{{pkg}}" exports nothing to import: a service is never imported; share code through libs/ or a gRPC contract.',
    },
    schema: [],
  },
  create(context) {
    const packages = workspaceEntryPoints();

    /** @param {import('estree').Node} node @param {unknown} value */
    function check(node, value) {
      if (typeof value !== 'string') return;
      const match = /^(@atelier\/[^/]+)(\/.*)?$/.exec(value);
      const exported = match?.[1] ? packages.get(match[1]) : undefined;
      if (!match || !exported) return;
      const [, pkg, subpath] = match;
      if (exported.size === 0) context.report({ node, messageId: 'noEntryPoint', data: { pkg } });
      else if (!exported.has(subpath ? `.${subpath}` : '.'))
        context.report({ node, messageId: 'deepImport', data: { pkg, source: value } });
    }

    return onImportSources(check);
  },
};
