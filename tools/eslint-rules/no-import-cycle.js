// @ts-check
/**
 * No import cycle between a project's files. @nx/enforce-module-boundaries refuses a cycle between
 * projects; within one, two files that import each other (a type-only import counts: it is a
 * design cycle even when the compiler erases it) have no order to read or change them in, and a
 * value cycle can hand a module its neighbour half-initialized. The rule follows the relative
 * imports from each import of the file it lints, reading the files it reaches from disk, and
 * reports the import through which the file reaches itself again, with the cycle's path.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { onImportSources } from './import-sources.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Every relative specifier of import, export … from, and import() in a file's text. */
const RELATIVE_IMPORT = /(?:^|[\n;])\s*(?:import|export)\b[^;'"]*?['"](\.{1,2}\/[^'"]+)['"]|\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

/**
 * The file a relative specifier names: TypeScript's `./x.js` is `./x.ts` on disk.
 * @param {string} fromFile @param {string} specifier
 */
export function resolveRelative(fromFile, specifier) {
  const target = path.resolve(path.dirname(fromFile), specifier);
  const candidates = [
    target,
    target.replace(/\.js$/, '.ts'),
    target.replace(/\.js$/, '.tsx'),
    `${target}.ts`,
    path.join(target, 'index.ts'),
  ];
  return candidates.find((candidate) => /\.(ts|tsx|js|mjs)$/.test(candidate) && existsSync(candidate) && statSync(candidate).isFile());
}

/** @type {Map<string, { mtimeMs: number, imports: string[] }>} a lint run reads each file once */
const importsCache = new Map();

/** @param {string} file @returns {string[]} the files it imports by relative path */
function importsOf(file) {
  const { mtimeMs } = statSync(file);
  const cached = importsCache.get(file);
  if (cached?.mtimeMs === mtimeMs) return cached.imports;
  const imports = [];
  for (const match of readFileSync(file, 'utf8').matchAll(RELATIVE_IMPORT)) {
    const resolved = resolveRelative(file, /** @type {string} */ (match[1] ?? match[2]));
    if (resolved) imports.push(resolved);
  }
  importsCache.set(file, { mtimeMs, imports });
  return imports;
}

/**
 * A path of imports from `start` back to `file`, if there is one.
 * @param {string} start @param {string} file @returns {string[] | undefined}
 */
function pathBack(start, file) {
  /** @type {Map<string, string | undefined>} each reached file, with the file that imported it */
  const reachedFrom = new Map([[start, undefined]]);
  const stack = [start];
  while (stack.length > 0) {
    const current = /** @type {string} */ (stack.pop());
    for (const next of importsOf(current)) {
      if (next === file) {
        const chain = [current];
        for (let at = reachedFrom.get(current); at !== undefined; at = reachedFrom.get(at)) chain.unshift(at);
        return chain;
      }
      if (reachedFrom.has(next) || next.includes(`${path.sep}node_modules${path.sep}`)) continue;
      reachedFrom.set(next, current);
      stack.push(next);
    }
  }
  return undefined;
}

/** @type {import('eslint').Rule.RuleModule} */
export const noImportCycle = {
  meta: {
    type: 'problem',
    docs: { description: "a project's files import each other in one direction only" },
    messages: {
      cycle: 'Import cycle: {{cycle}}. Move what both sides need into a module that imports neither.',
    },
    schema: [],
  },
  create(context) {
    const file = context.filename;

    /** @param {import('estree').Node} node @param {unknown} source */
    function check(node, source) {
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const target = resolveRelative(file, source);
      if (!target || target === file) return;
      const back = pathBack(target, file);
      if (!back) return;
      const cycle = [file, ...back, file].map((step) => path.relative(repoRoot, step)).join(' → ');
      context.report({ node, messageId: 'cycle', data: { cycle } });
    }

    return onImportSources(check);
  },
};
