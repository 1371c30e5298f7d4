import { defaultAddressOf } from '@atelier/platform';
import { FLAGS } from './cli-args.js';
import { COMMAND_GROUPS, type CommandGroup, type CommandName, type HelpTopic } from './cli-commands.js';

/** Help texts, built from the option table so that they cannot drift from what the parser accepts. */

interface CommandHelp {
  /** The command with its arguments, as the overview lists it. */
  readonly label: string;
  readonly synopsis: string;
  readonly summary: string;
  readonly details: readonly string[];
  readonly examples: readonly string[];
}

const COMMANDS: Readonly<Record<CommandName, CommandHelp>> = {
  status: {
    label: 'status',
    synopsis: 'status [--namespace NS] [--selector SELECTOR] [--context NAME] [--json]',
    summary: 'readiness, worker replicas, consumer lag, queue depth and outbox backlog',
    details: [
      'Reads three sources at once, each within ATELIER_OPS_TIMEOUT_MS: the Deployments matching the',
      'selector (Kubernetes API), the workers’ JetStream consumers (NATS_URL, NATS_STREAM_PREFIX) and',
      'the jobs admin API (JOBS_ADDR). A source that cannot be read is reported as such; the others',
      'are still shown.',
      '',
      'Exit status: 0 every Deployment ready and every source read; 1 a Deployment not fully ready,',
      'no (worker) Deployment matched, or a worker consumer or the stream is missing; 69 a source',
      'could not be read (that wins over 1). Dead outbox events, a stalled outbox and expired leases',
      'are printed as warnings and do not change it.',
    ],
    examples: ['atelier-ops status', 'atelier-ops status -n atelier-staging --context staging --json'],
  },
  'scale-workers': {
    label: 'scale-workers <replicas>',
    synopsis: 'scale-workers <replicas> [--namespace NS] [--selector SELECTOR] [--context NAME] [--force]',
    summary: 'set the worker Deployment’s replicas (0–1000)',
    details: [
      'Finds the one Deployment matching the selector with app.kubernetes.io/component=worker and',
      'patches its scale. When a HorizontalPodAutoscaler targets it (KEDA creates one for a',
      'ScaledObject), the autoscaler would undo a manual scale within seconds: the command refuses',
      'unless --force is given. Change the autoscaler’s bounds instead (chart values worker.autoscaling).',
      '',
      'Exit status: 0 scaled; 1 refused (autoscaled, no or several worker Deployments); 64 bad',
      'replica count; 69 Kubernetes API unreachable; 77 not allowed; 78 bad kubeconfig.',
    ],
    examples: ['atelier-ops scale-workers 6', 'atelier-ops scale-workers 0 -n atelier --force'],
  },
  'jobs show': {
    label: 'jobs show <id>',
    synopsis: 'jobs show <job-id> [--json]',
    summary: 'one job’s timeline: its transitions and attempts, with internal errors',
    details: [
      'Asks the jobs admin API (JOBS_ADDR) for the job, every transition it went through (who made',
      'it, the error code and internal detail it recorded) and each attempt: when it was queued, how',
      'long it waited for a worker and ran, what it led to. Also the provider request id and the',
      'internal error message users never see.',
      '',
      'Exit status: 0 shown; 1 no such job; 69 jobs unreachable.',
    ],
    examples: ['atelier-ops jobs show 01938c1e-7a3b-7c2e-9d41-3f0a5b6c7d8e', 'atelier-ops jobs show <job-id> --json'],
  },
  'jobs cancel': {
    label: 'jobs cancel <id>',
    synopsis: 'jobs cancel <job-id> [--operator ID]',
    summary: 'cancel any user’s job, as its owner’s cancel would',
    details: [
      'Jobs cancels it exactly as its owner’s cancel would (a prediction it has is cancelled at the',
      'vendor) and records the actor operator:<ID> in its history; the new status is printed.',
      '',
      'Exit status: 0 cancelled; 1 refused (the job already ended — the message names its status —,',
      'cannot stop while running, or does not exist); 69 jobs unreachable.',
    ],
    examples: ['atelier-ops jobs cancel 01938c1e-7a3b-7c2e-9d41-3f0a5b6c7d8e --operator alice'],
  },
  'dead-letters list': {
    label: 'dead-letters list',
    synopsis: 'dead-letters list [--limit N] [--json]',
    summary: 'outbox events that used up their publish attempts, oldest first',
    details: [
      'Asks the jobs admin API (JOBS_ADDR) for dead outbox events: the event, its job, the subject it',
      'could not be published to, its attempts and last error. Fix the cause (the stream, NATS), then',
      'replay them.',
      '',
      'Exit status: 0 listed (also when there are none); 69 jobs unreachable.',
    ],
    examples: ['atelier-ops dead-letters list', 'atelier-ops dead-letters list --limit 200 --json'],
  },
  'dead-letters replay': {
    label: 'dead-letters replay <id>...',
    synopsis: 'dead-letters replay <event-id>... [--operator ID]',
    summary: 'put dead outbox events back to pending, attempts reset',
    details: [
      'The jobs outbox relay publishes a replayed event again within a second; JetStream drops a',
      'copy it already holds (the event’s dedupe key is its message id), so a replay never doubles',
      'a dispatch. Each id is replayed on its own; one refusal does not stop the others.',
      '',
      'Exit status: 0 every event replayed; 1 an event was refused (not dead, unknown); 69 jobs',
      'unreachable.',
    ],
    examples: ['atelier-ops dead-letters replay 4211', 'atelier-ops dead-letters replay 4211 4212 --operator alice'],
  },
  'dead-letters audit': {
    label: 'dead-letters audit',
    synopsis: 'dead-letters audit [--limit N] [--json]',
    summary: 'who replayed which dead event, when, and what jobs found, newest first',
    details: [
      'Every replay call leaves a row in jobs, refused or not, written in the transaction that',
      'decided it: replayed (the event was dead and is pending again), not dead, not found.',
      '',
      'Exit status: 0 listed (also when there are none); 69 jobs unreachable.',
    ],
    examples: ['atelier-ops dead-letters audit', 'atelier-ops dead-letters audit --limit 500 --json'],
  },
  'catalog list': {
    label: 'catalog list',
    synopsis: 'catalog list [--kind image|video] [--json]',
    summary: 'every model and style, disabled ones included',
    details: [
      'Asks the catalog API (CATALOG_ADDR) for all its entries, grouped by kind then display order,',
      'with the ids `catalog enable|disable` take. Disabled entries are hidden from the app.',
      '',
      'Exit status: 0 listed; 69 catalog unreachable.',
    ],
    examples: ['atelier-ops catalog list', 'atelier-ops catalog list --kind image --json'],
  },
  'catalog enable': {
    label: 'catalog enable <model|style> <id>',
    synopsis: 'catalog enable <model|style> <id>',
    summary: 'show a model or style in the app again',
    details: [
      'Idempotent. Catalog announces the change; the jobs service’s cache drops its copy at once.',
      '',
      'Exit status: 0 enabled; 1 no such entry; 69 catalog unreachable; 77 not allowed.',
    ],
    examples: ['atelier-ops catalog enable style 0193a0b1-2c3d-7e4f-8a9b-0c1d2e3f4a5b'],
  },
  'catalog disable': {
    label: 'catalog disable <model|style> <id>',
    synopsis: 'catalog disable <model|style> <id>',
    summary: 'hide a model or style from the app (new jobs can no longer pick it)',
    details: [
      'Idempotent. Jobs already created with the entry keep running: they carry a snapshot of it.',
      '',
      'Exit status: 0 disabled; 1 no such entry; 69 catalog unreachable; 77 not allowed.',
    ],
    examples: ['atelier-ops catalog disable model 0193a0b1-2c3d-7e4f-8a9b-0c1d2e3f4a5b'],
  },
  spend: {
    label: 'spend',
    synopsis: 'spend [--json]',
    summary: 'today’s vendor spend (UTC) per provider and per model',
    details: [
      'Asks the jobs usage API (JOBS_ADDR) for the cost of today’s billable vendor calls, from 00:00',
      'UTC until now: per provider, per model and in total, in each currency, with the predictions',
      'billed and their predict time. A prediction billed without a price in force shows under the',
      'currency "-" (price it with the catalog, then RecomputeCosts). See docs/usage-ledger.md.',
      '',
      'Exit status: 0 shown; 69 jobs unreachable.',
    ],
    examples: ['atelier-ops spend', 'atelier-ops spend --json'],
  },
  'credentials rewrap': {
    label: 'credentials rewrap',
    synopsis: 'credentials rewrap [--batch N]',
    summary: "move users' vendor keys to the current key-encryption key",
    details: [
      'After a KEK rotation (docs/credentials.md): asks jobs (RewrapCredentials) batch after batch',
      'until no key is left under an older KEK. Idempotent; safe beside another run.',
      '',
      'Exit status: 0 done; 69 jobs unreachable; 77 not allowed.',
    ],
    examples: ['atelier-ops credentials rewrap', 'atelier-ops credentials rewrap --batch 500'],
  },
};

/** One sentence per group, for its help. */
const GROUP_SUMMARIES: Readonly<Record<CommandGroup, string>> = {
  jobs: 'One job, any user’s: its whole story, and an operator’s cancel.',
  'dead-letters': 'Outbox events the jobs relay could not publish within OUTBOX_MAX_ATTEMPTS tries.',
  catalog: 'The models and styles users pick from, disabled ones included.',
  credentials: "Users' own vendor keys, sealed under the key-encryption keys.",
};

const ENVIRONMENT = [
  'Environment:',
  '  KUBECONFIG               kubeconfig file(s), as for kubectl (else ~/.kube/config, else in-cluster)',
  '  ATELIER_NAMESPACE        namespace of the release (atelier)',
  '  ATELIER_SELECTOR         label selector of its Deployments (app.kubernetes.io/part-of=atelier)',
  `  JOBS_ADDR                jobs gRPC API, host:port (${defaultAddressOf('jobs')}; port-forward it in a cluster)`,
  `  CATALOG_ADDR             catalog gRPC API, host:port (${defaultAddressOf('catalog')}; port-forward it in a cluster)`,
  '  GRPC_TLS_CA_FILE, GRPC_TLS_CERT_FILE, GRPC_TLS_KEY_FILE   the operator certificate (identity ops) for jobs and catalog',
  '  NATS_URL                 NATS with JetStream (nats://127.0.0.1:4222)',
  '  NATS_STREAM_PREFIX       stream prefix jobs and the workers use (ATELIER)',
  '  NATS_USER, NATS_PASSWORD or NATS_TOKEN   NATS credentials, as the services take them',
  '  ATELIER_OPERATOR_ID      who replays dead events and cancels jobs (ops-cli:<login>)',
  '  ATELIER_OPS_TIMEOUT_MS   deadline of each call (5000)',
];

function optionLines(command: CommandName): string[] {
  const flags = FLAGS.filter((flag) => flag.commands.includes(command));
  const labels = flags.map((flag) => `${flag.short ? `-${flag.short}, ` : '    '}--${flag.long}${flag.value ? ` ${flag.value}` : ''}`);
  const width = Math.max(...labels.map((label) => label.length));
  return flags.map((flag, i) => `  ${labels[i]!.padEnd(width)}  ${flag.help}`);
}

function commandList(): string[] {
  const entries = [
    ...Object.values(COMMANDS).map((help) => [help.label, help.summary] as const),
    ['help [command]', 'this overview, or a command’s help'] as const,
  ];
  const width = Math.max(...entries.map(([label]) => label.length)) + 2;
  return entries.map(([label, summary]) => `  ${label.padEnd(width)}${summary}`);
}

function overview(brief: boolean): string[] {
  const usage = ['Usage: atelier-ops <command> [options]', '', 'Commands:', ...commandList()];
  if (brief) return [...usage, '', 'Run `atelier-ops --help` for the environment it reads and its exit statuses.'];
  return [
    'Usage: atelier-ops <command> [options]',
    '',
    'The operator CLI of Atelier: is the release ready, how far behind are the workers, scale them,',
    'follow or cancel one job, replay outbox events that could not be published, show or hide',
    'catalog entries.',
    '',
    'Commands:',
    ...commandList(),
    '',
    ...ENVIRONMENT,
    '',
    'Exit status: 0 ok, 1 not ready or refused, 64 usage, 69 unreachable, 70 bug, 77 forbidden,',
    '78 configuration. Run `atelier-ops <command> --help` for a command’s options.',
  ];
}

function commandHelp(command: CommandName, brief: boolean): string[] {
  const help = COMMANDS[command];
  const usage = [`Usage: atelier-ops ${help.synopsis}`, '', 'Options:', ...optionLines(command)];
  if (brief) return [...usage, '', `Run \`atelier-ops ${command} --help\` for details and examples.`];
  return [
    `Usage: atelier-ops ${help.synopsis}`,
    '',
    `${help.summary[0]!.toUpperCase()}${help.summary.slice(1)}.`,
    '',
    ...help.details,
    '',
    'Options:',
    ...optionLines(command),
    '',
    'Examples:',
    ...help.examples.map((example) => `  ${example}`),
  ];
}

function groupHelp(group: CommandGroup): string[] {
  const subcommands: readonly string[] = COMMAND_GROUPS[group];
  const width = Math.max(...subcommands.map((sub) => sub.length)) + 3;
  const help = (sub: string) => `atelier-ops ${group} ${sub} --help`;
  return [
    `Usage: atelier-ops ${group} <${subcommands.join('|')}> [options]`,
    '',
    GROUP_SUMMARIES[group],
    '',
    ...subcommands.map((sub) => `  ${sub.padEnd(width)}${COMMANDS[`${group} ${sub}` as CommandName].summary}`),
    '',
    `Run ${subcommands.map((sub) => `\`${help(sub)}\``).join(' or ')} for their options.`,
  ];
}

/**
 * The help of a topic (undefined: the overview), ending with a newline. `brief` is the form
 * printed under a usage error: the synopsis and options, not the whole manual.
 */
export function usageText(topic: HelpTopic | undefined, options: { brief?: boolean } = {}): string {
  const brief = options.brief ?? false;
  const lines =
    topic === undefined
      ? overview(brief)
      : Object.hasOwn(COMMAND_GROUPS, topic)
        ? groupHelp(topic as CommandGroup)
        : commandHelp(topic as CommandName, brief);
  return `${lines.join('\n')}\n`;
}
