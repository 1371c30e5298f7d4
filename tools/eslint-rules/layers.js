// @ts-check
/**
 * The layers inside a service. A service's files sit in folders named for their layer
 * (docs/architecture.md, "One skeleton per service"); this rule holds each layer to the layers it
 * may import, by relative path within services/<name>/src/. Files at the root of src/ (the app's
 * wiring, its context, config, metrics) are not a layer and are not checked; tests and their
 * support are not either (module-boundaries.js lints only production files with this rule).
 *
 * The order, from the bottom: domain/ (rules without I/O: functions of what they are given) and,
 * in jobs, definitions/ (the job-type registry); db/ (statements and rows); peers/ (calls to other
 * services); then what runs the work: rpc/ or routes/ (the API's handlers), background/ (loops and
 * listeners beside the server), and, in the worker, executors/ and attempt/ (an attempt's pipeline
 * over executors/ and peers/). A lower layer never imports a higher one, and the two entry layers,
 * rpc/ and background/, never import each other: what both need sits in a layer below them
 * (jobs' announce/). Of the files at the root of src/, `<svc>-context.ts` is what the API's
 * handlers are handed: only rpc/ and routes/ import it (a loop is handed what it uses, by the
 * wiring); and the wiring itself (`<svc>-app.ts`, `server.ts`, `main.ts`) is imported by no layer.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { onImportSources } from './import-sources.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const RULES_WITHOUT_IO = 'domain/ holds rules without I/O, tested without a database, a broker or a peer';
const STATEMENTS = 'db/ holds statements and rows, over the rules of domain/ only';
const PEER_CALLS = 'peers/ calls other services for whoever needs it, and knows none of its callers';
const ENTRY_LAYERS = 'rpc/ and background/ are entry layers: what both need belongs in a layer below them';

/**
 * @typedef {{ only?: string[], not?: string[], why: string }} LayerRule
 *   only: the other layers it may import (every other is refused); not: the layers it may not import
 */

/** @type {Record<string, LayerRule>} every service's layers */
const EVERY_SERVICE = {
  domain: { only: ['definitions'], why: RULES_WITHOUT_IO },
  db: { only: ['domain', 'definitions'], why: STATEMENTS },
  peers: { not: ['db', 'rpc', 'routes', 'background', 'announce', 'executors', 'attempt'], why: PEER_CALLS },
  rpc: { not: ['background'], why: ENTRY_LAYERS },
  background: { not: ['rpc', 'routes'], why: ENTRY_LAYERS },
};

/** @type {Record<string, Record<string, LayerRule>>} what a service adds or tightens */
const BY_SERVICE = {
  jobs: {
    definitions: { only: [], why: 'definitions/ is the job-type registry, below every other layer' },
    announce: {
      not: ['rpc', 'background', 'peers'],
      why: 'announce/ is what rpc/ and background/ both call after a commit: it imports neither',
    },
  },
  worker: {
    executors: { not: ['attempt', 'background'], why: 'executors/ run one attempt of a job type; attempt/ drives them' },
    attempt: { not: ['background'], why: 'attempt/ runs one attempt; background/ consumes the queue and calls it' },
    peers: {
      only: [],
      why: "the worker's peers/ are its clients of jobs, media and the vendor: they report what the other side answered, and the attempt judges what it means for the job",
    },
  },
  webhooks: {
    peers: { only: ['domain'], why: PEER_CALLS },
  },
  gateway: {
    http: { only: [], why: "http/ is the API's plumbing (errors, schemas, enum words) beneath every route" },
    auth: { not: ['routes'], why: 'auth/ authenticates for every route and knows none' },
    i18n: { not: ['routes'], why: 'i18n/ translates for every route and knows none' },
    'rate-limit': { not: ['routes'], why: 'rate-limit/ limits every route and knows none' },
  },
};

/**
 * The service and layer of a file: services/<service>/src/<layer>/…; the layer is undefined for
 * a file at the root of src/.
 * @param {string} file an absolute path
 */
export function layerOf(file) {
  const parts = path.relative(repoRoot, file).split(path.sep);
  if (parts[0] !== 'services' || parts[2] !== 'src' || parts.length < 4) return undefined;
  return { service: /** @type {string} */ (parts[1]), layer: parts.length > 4 ? parts[3] : undefined };
}

/** @param {string} service @param {string} layer @returns {LayerRule | undefined} */
function ruleOf(service, layer) {
  return BY_SERVICE[service]?.[layer] ?? EVERY_SERVICE[layer];
}

/** @type {import('eslint').Rule.RuleModule} */
export const layers = {
  meta: {
    type: 'problem',
    docs: { description: "a service's layers import only the layers below them" },
    messages: {
      upward: '{{from}}/ may not import {{to}}/ ("{{source}}"): {{why}}.',
      context:
        '{{from}}/ may not import the handlers\' context ("{{source}}"): only rpc/ and routes/ do; take what it uses as parameters, typed by the modules that define them.',
      wiring: '{{from}}/ may not import the process\'s wiring ("{{source}}"): it imports the layers, not the other way round.',
    },
    schema: [],
  },
  create(context) {
    const from = layerOf(context.filename);
    if (!from?.layer) return {};
    const rule = ruleOf(from.service, from.layer);
    const fromLayer = from.layer;

    /** @param {import('estree').Node} node @param {unknown} source */
    function check(node, source) {
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const target = path.resolve(path.dirname(context.filename), source);
      const to = layerOf(target);
      if (!to || to.service !== from?.service || to.layer === fromLayer) return;
      if (!to.layer) {
        const name = path.basename(target);
        const data = { from: fromLayer, source };
        if (/-context\.(js|ts)$/.test(name) && fromLayer !== 'rpc' && fromLayer !== 'routes')
          context.report({ node, messageId: 'context', data });
        else if (/^(main|server)\.(js|ts)$|-app\.(js|ts)$/.test(name)) context.report({ node, messageId: 'wiring', data });
        return;
      }
      const refused = rule?.only ? !rule.only.includes(to.layer) : (rule?.not ?? []).includes(to.layer);
      if (refused) context.report({ node, messageId: 'upward', data: { from: fromLayer, to: to.layer, source, why: rule?.why ?? '' } });
    }

    return onImportSources(check);
  },
};
