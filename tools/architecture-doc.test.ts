// docs/architecture.md (and the README's picture) held to the code, so that neither can drift: the
// processes to the platform description, the hops to the peer addresses each service's config.ts
// declares, the streams and durable consumers to libs/nats and the services that declare them, the
// jobs outbox's event types to the statements that write them. Beside it: every alert of the
// chart's PrometheusRule has its runbook in docs/operations.md, and every relative link of the
// documentation leads to a file (and heading) that exists.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CONTROL_TASKS, JOB_QUEUES, jobsTopology, windowCountersBucket } from '@atelier/nats';
import { PLATFORM_SERVICES } from '@atelier/platform';
import { ADDRESS_VARIABLES, callersByService } from './deploy/code-facts.js';
import { repoRoot } from './deploy/helm.js';
import { brokenLinks, documentationFiles } from './docs/markdown-links.js';

const read = (file: string) => readFileSync(path.join(repoRoot, file), 'utf8');
const architecture = read('docs/architecture.md');
const readme = read('README.md');
const processNames = PLATFORM_SERVICES.map((service) => service.name);

/** The text of a `## heading` section, up to the next one. */
function section(text: string, heading: string): string {
  const start = text.indexOf(`\n## ${heading}\n`);
  if (start === -1) throw new Error(`no section "## ${heading}"`);
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end === -1 ? undefined : end);
}

/** The cells of a markdown table's rows (header and rule left out). */
function tableRows(text: string): string[][] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('|') && !/^\|[\s:|-]+\|$/.test(line))
    .slice(1)
    .map((line) =>
      line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim()),
    );
}

const ticked = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);

interface Flowchart {
  /** Node id → the process it stands for (a platform service, `ops-cli`, `nats`), when it stands for one. */
  readonly processOf: Map<string, string>;
  readonly edges: { from: string; to: string; label: string }[];
}

const NODE = String.raw`(\w+)(?:\(\[([^\]]*)\]\)|\[\(([^)]*)\)\]|\[([^\]]*)\])?`;
const EDGE = new RegExp(String.raw`^\s*${NODE}\s*(?:--\s*"([^"]*)"\s*-->|-->|---)\s*${NODE}\s*$`);
const NODE_ONLY = new RegExp(String.raw`^\s*${NODE}\s*$`);

/** The first mermaid flowchart of `text`: its nodes and its edges. */
function flowchart(text: string): Flowchart {
  const block = /```mermaid\nflowchart[^\n]*\n([\s\S]*?)```/.exec(text);
  if (!block) throw new Error('no mermaid flowchart');
  const labels = new Map<string, string>();
  const edges: Flowchart['edges'] = [];
  const remember = (id: string, ...label: (string | undefined)[]) => {
    const given = label.find((part) => part !== undefined);
    if (given !== undefined) labels.set(id, given);
    else if (!labels.has(id)) labels.set(id, id);
  };
  for (const line of block[1]!.split('\n')) {
    if (/^\s*(subgraph\b|end\s*$|$)/.test(line)) continue;
    const edge = EDGE.exec(line);
    if (edge) {
      remember(edge[1]!, edge[2], edge[3], edge[4]);
      remember(edge[6]!, edge[7], edge[8], edge[9]);
      edges.push({ from: edge[1]!, to: edge[6]!, label: edge[5] ?? '' });
      continue;
    }
    const node = NODE_ONLY.exec(line);
    if (!node) throw new Error(`a flowchart line this test cannot read: "${line.trim()}"`);
    remember(node[1]!, node[2], node[3], node[4]);
  }
  const processOf = new Map<string, string>();
  for (const [id, label] of labels) {
    const first = /^[a-z][a-z-]*/.exec(label)?.[0];
    if (first && processNames.includes(first)) processOf.set(id, first);
    else if (label.includes('atelier-ops')) processOf.set(id, 'ops-cli');
    else if (label.includes('NATS')) processOf.set(id, 'nats');
  }
  return { processOf, edges };
}

/** `caller → callee` of every edge between two processes (NATS aside). */
function hopsOf(chart: Flowchart): string[] {
  const hops = chart.edges.flatMap(({ from, to }) => {
    const [caller, callee] = [chart.processOf.get(from), chart.processOf.get(to)];
    return caller && callee && caller !== 'nats' && callee !== 'nats' ? [`${caller} → ${callee}`] : [];
  });
  return [...new Set(hops)].sort();
}

/** The processes with an edge to or from NATS. */
function natsUsersOf(chart: Flowchart): string[] {
  const users = chart.edges.flatMap(({ from, to }) => {
    const ends = [chart.processOf.get(from), chart.processOf.get(to)];
    return ends.includes('nats') ? ends.filter((end): end is string => end !== undefined && end !== 'nats') : [];
  });
  return [...new Set(users)].sort();
}

/** Each process's config spec source: the nine services' config.ts and atelier-ops' ops-config.ts. */
const configSources = new Map<string, string>([
  ...processNames.map((name) => [name, read(`services/${name}/src/config.ts`)] as const),
  ['ops-cli', read('services/ops-cli/src/ops-config.ts')],
]);
const declares = (source: string, variable: string) => new RegExp(`\\b${variable}:`).test(source);
/** Spread specs of libs/nats, libs/account-deletion and libs/outbox: a service that spreads one declares its variables. */
const SPREAD_VARIABLES: Record<string, string> = {
  natsConfigSpec: 'NATS_URL',
  accountDeletionConfigSpec: 'ACCOUNT_DELETION_ACK_WAIT_MS',
  productEventsConfigSpec: 'PRODUCT_EVENTS_USER_KEY',
};
function processesDeclaring(variable: string): string[] {
  return [...configSources]
    .filter(
      ([, source]) =>
        declares(source, variable) ||
        Object.entries(SPREAD_VARIABLES).some(([spread, v]) => v === variable && source.includes(`...${spread}`)),
    )
    .map(([name]) => name)
    .sort();
}

/** caller → callee of every peer address each process's config declares (PROVIDER_URL included). */
function codeHops(): string[] {
  const hops = [...callersByService()].flatMap(([callee, callers]) => callers.map((caller) => `${caller} → ${callee}`));
  const ops = configSources.get('ops-cli')!;
  for (const [variable, callee] of Object.entries(ADDRESS_VARIABLES)) if (declares(ops, variable)) hops.push(`ops-cli → ${callee}`);
  return [...new Set(hops)].sort();
}

describe('docs/architecture.md - processes', () => {
  const rows = tableRows(section(architecture, 'Processes'));

  it('lists every process of the platform description, and nothing else', () => {
    expect(rows.map((row) => ticked(row[0]!)[0]).sort()).toEqual([...processNames].sort());
  });

  it.each(processNames)('%s: its ports as described', (name) => {
    const service = PLATFORM_SERVICES.find((candidate) => candidate.name === name)!;
    const row = rows.find((cells) => ticked(cells[0]!)[0] === name)!.join(' | ');
    const ports =
      service.protocol === 'grpc' ? [service.port, service.healthPort, service.localMetricsPort, service.metricsPort] : [service.port];
    for (const port of ports) expect(row, `${name}'s row names port ${port}`).toMatch(new RegExp(`\\b${port}\\b`));
  });
});

describe('docs/architecture.md - hops', () => {
  const chart = flowchart(section(architecture, 'Hops'));

  it('draws every process', () => {
    expect([...new Set(chart.processOf.values())].filter((name) => name !== 'nats').sort()).toEqual([...processNames, 'ops-cli'].sort());
  });

  it("draws exactly the calls the services' config.ts declare a peer address for", () => {
    expect(hopsOf(chart)).toEqual(codeHops());
  });

  it('joins NATS to exactly the processes whose config reads NATS_URL', () => {
    expect(natsUsersOf(chart)).toEqual(processesDeclaring('NATS_URL'));
  });
});

describe("README.md's picture", () => {
  const chart = flowchart(section(readme, 'The processes'));

  it('draws every service, and only calls the code makes', () => {
    expect([...new Set(chart.processOf.values())]).toEqual(expect.arrayContaining(processNames));
    expect(codeHops()).toEqual(expect.arrayContaining(hopsOf(chart)));
    expect(processesDeclaring('NATS_URL')).toEqual(expect.arrayContaining(natsUsersOf(chart)));
  });
});

describe('docs/architecture.md - streams and consumers', () => {
  const rows = tableRows(section(architecture, 'Streams, subjects and consumers'));
  const topology = jobsTopology('PREFIX');
  const named = (name: string) => name.replace(/^PREFIX_/, '<PREFIX>_');

  it('lists the streams of libs/nats and the rate-limit bucket, and nothing else', () => {
    const streams = [
      topology.jobsStream,
      topology.eventsStream,
      topology.accountEventsStream,
      topology.productEventsStream,
      topology.opsEventsStream,
    ];
    expect(rows.map((row) => ticked(row[0]!)[0]).sort()).toEqual([...streams, windowCountersBucket('PREFIX')].map(named).sort());
  });

  it('names every durable consumer the code declares, and no other', async () => {
    const media = (await import(pathToFileURL(path.join(repoRoot, 'services/media/src/background/job-output-cleanup.ts')).href)) as {
      OUTPUTLESS_END_STATES: readonly ('failed' | 'cancelled')[];
      outputCleanupConsumer: (state: 'failed' | 'cancelled') => string;
    };
    const webhooks = (await import(pathToFileURL(path.join(repoRoot, 'services/webhooks/src/fanout/lifecycle-fanout.ts')).href)) as {
      FANOUT_CONSUMER: string;
    };
    const bridge = 'product-events-bridge';
    expect(read('charts/atelier/nats/nats-server.conf.example'), 'the NATS configuration lets the bridge read its consumer').toContain(
      bridge,
    );
    const declared = [
      ...JOB_QUEUES.map((queue) => topology.consumerName(queue)),
      ...CONTROL_TASKS.map((task) => topology.controlConsumerName(task)),
      ...processesDeclaring('ACCOUNT_DELETION_ACK_WAIT_MS').map((service) => topology.accountDeletionConsumerName(service)),
      ...media.OUTPUTLESS_END_STATES.map((state) => media.outputCleanupConsumer(state)),
      webhooks.FANOUT_CONSUMER,
      bridge,
    ];
    const documented = rows.flatMap((row) => ticked(row.at(-1)!)).filter((name) => /^[a-z][a-z0-9-]*$/.test(name));
    expect([...new Set(documented)].sort()).toEqual([...new Set(declared)].sort());
  });

  it('names every writer of product events', () => {
    const row = rows.find((cells) => ticked(cells[0]!)[0] === named(topology.productEventsStream))!;
    for (const service of processesDeclaring('PRODUCT_EVENTS_USER_KEY')) expect(row[3], service).toContain(service);
  });
});

describe('docs/architecture.md - the outbox of jobs', () => {
  it('lists exactly the event types the jobs statements write', () => {
    const folder = path.join(repoRoot, 'services/jobs/src/db');
    const sources = readdirSync(folder, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
      .map((file) => readFileSync(path.join(folder, file), 'utf8'));
    // 'job.' || j.status, 'creation_job_' || j.status: one event type per end status.
    const written = sources.flatMap((source) =>
      [...source.matchAll(/'((?:job|account)\.[a-z_]*|creation_job_[a-z_]*)'/g)].map((match) =>
        /[._]$/.test(match[1]!) ? `${match[1]}<status>` : match[1]!,
      ),
    );
    const rows = tableRows(section(architecture, "A job's life"));
    expect(rows.map((row) => ticked(row[0]!)[0]).sort()).toEqual([...new Set(written)].sort());
  });
});

describe('docs/operations.md', () => {
  it("has a runbook for every alert of the chart's PrometheusRule, and for no other", () => {
    const rule = read('charts/atelier/templates/monitoring-prometheusrule.yaml');
    const alerts = [...rule.matchAll(/- alert: (\w+)/g)].map((match) => match[1]!);
    const runbooks = [...read('docs/operations.md').matchAll(/^### (Atelier\w+)$/gm)].map((match) => match[1]!);
    expect(alerts.length).toBeGreaterThan(0);
    expect(runbooks.sort()).toEqual(alerts.sort());
  });
});

describe('the documentation - links', () => {
  it('leads every relative link of README.md, docs/*.md and bench/README.md to a file and heading that exist', () => {
    expect(brokenLinks(repoRoot, documentationFiles(repoRoot))).toEqual([]);
  });

  it('finds a broken link and a missing heading (the check can fail)', () => {
    const files = documentationFiles(repoRoot);
    expect(files).toEqual(expect.arrayContaining(['README.md', 'docs/architecture.md', 'bench/README.md']));
    const scratch = path.join('tools', 'docs', 'fixtures');
    expect(brokenLinks(repoRoot, [path.join(scratch, 'broken-links.md')])).toEqual([
      { file: path.join(scratch, 'broken-links.md'), link: '../../../docs/no-such-page.md', problem: 'no such file' },
      {
        file: path.join(scratch, 'broken-links.md'),
        link: '../../../docs/architecture.md#no-such-heading',
        problem: 'no heading #no-such-heading in docs/architecture.md',
      },
    ]);
  });
});
