import { NAMESPACE_PATTERN } from './release-labels.js';
import { OPERATOR_ID_PATTERN } from './ops-config.js';
import { COMMAND_GROUPS, COMMAND_NAMES, type CommandGroup, type CommandName, type HelpTopic } from './cli-commands.js';
import { UsageError } from './usage-error.js';

/** Where in Kubernetes a command looks; unset fields fall back to the environment's defaults. */
export interface KubeTarget {
  readonly namespace: string | undefined;
  readonly selector: string | undefined;
  readonly context: string | undefined;
}

/** `catalog list --kind`: the media kinds the catalog has entries of. */
export const CATALOG_KINDS = ['image', 'video'] as const;
export type CatalogKind = (typeof CATALOG_KINDS)[number];
/** What `catalog enable|disable` acts on. */
export const CATALOG_ENTRY_KINDS = ['model', 'style'] as const;
export type CatalogEntryKind = (typeof CATALOG_ENTRY_KINDS)[number];

/** A command line, parsed and validated: nothing downstream re-checks its shape. */
export type CliCommand =
  | { readonly name: 'help'; readonly topic: HelpTopic | undefined }
  | { readonly name: 'status'; readonly kube: KubeTarget; readonly json: boolean }
  | { readonly name: 'scale-workers'; readonly kube: KubeTarget; readonly replicas: number; readonly force: boolean }
  | { readonly name: 'jobs show'; readonly jobId: string; readonly json: boolean }
  | { readonly name: 'jobs cancel'; readonly jobId: string; readonly operator: string | undefined }
  | { readonly name: 'dead-letters list'; readonly limit: number; readonly json: boolean }
  | { readonly name: 'dead-letters replay'; readonly eventIds: readonly string[]; readonly operator: string | undefined }
  | { readonly name: 'dead-letters audit'; readonly limit: number; readonly json: boolean }
  | { readonly name: 'catalog list'; readonly kind: CatalogKind | undefined; readonly json: boolean }
  | { readonly name: 'spend'; readonly json: boolean }
  | {
      readonly name: 'catalog enable' | 'catalog disable';
      readonly entry: CatalogEntryKind;
      readonly id: string;
    }
  | { readonly name: 'credentials rewrap'; readonly batch: number };

export interface FlagSpec {
  /** Without the leading `--`. */
  readonly long: string;
  readonly short?: string;
  /** The value's placeholder in help; absent for a switch. */
  readonly value?: string;
  readonly help: string;
  readonly commands: readonly CommandName[];
}

const KUBE_COMMANDS: readonly CommandName[] = ['status', 'scale-workers'];

/**
 * Every option of every command in one table. An option means the same thing (and takes a value
 * or not) wherever it is accepted, so the command line can be split into options and arguments
 * before the command is known — options may come before or after the command.
 */
export const FLAGS: readonly FlagSpec[] = [
  {
    long: 'namespace',
    short: 'n',
    value: 'NS',
    help: 'namespace of the release (default: $ATELIER_NAMESPACE, else atelier)',
    commands: KUBE_COMMANDS,
  },
  {
    long: 'selector',
    short: 'l',
    value: 'SELECTOR',
    help: 'label selector of the release Deployments (default: $ATELIER_SELECTOR, else app.kubernetes.io/part-of=atelier)',
    commands: KUBE_COMMANDS,
  },
  { long: 'context', value: 'NAME', help: 'kubeconfig context to use (default: the current context)', commands: KUBE_COMMANDS },
  {
    long: 'json',
    help: 'print one JSON document for scripts instead of tables',
    commands: ['status', 'jobs show', 'dead-letters list', 'dead-letters audit', 'catalog list', 'spend'],
  },
  {
    long: 'force',
    help: 'scale even when a HorizontalPodAutoscaler (or KEDA ScaledObject) manages the workers',
    commands: ['scale-workers'],
  },
  { long: 'limit', value: 'N', help: 'show at most N rows, 1–1000 (default 20)', commands: ['dead-letters list', 'dead-letters audit'] },
  {
    long: 'operator',
    value: 'ID',
    help: 'who acts, recorded in the jobs history (default: $ATELIER_OPERATOR_ID, else ops-cli:<login>)',
    commands: ['jobs cancel', 'dead-letters replay'],
  },
  { long: 'kind', value: 'KIND', help: 'only entries of this media kind: image or video (default: all)', commands: ['catalog list'] },
  { long: 'batch', value: 'N', help: 'credentials per call, 1–1000 (default 100)', commands: ['credentials rewrap'] },
  { long: 'help', short: 'h', help: 'show this help', commands: COMMAND_NAMES },
];

export const MAX_REPLICAS = 1000;
export const MAX_LIST_LIMIT = 1000;
const DEFAULT_LIST_LIMIT = 20;
/** An outbox event id: a positive bigint, as jobs writes it. */
const EVENT_ID_PATTERN = /^[1-9][0-9]{0,18}$/;
/** Job, model and style ids: UUIDs, as jobs and catalog write them (jobs' are v7). */
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** `-3` is a (bad) number, not an option: it should be refused as a replica count, not as an unknown flag. */
const NEGATIVE_NUMBER = /^-\d/;

interface SplitArgs {
  positionals: string[];
  flags: Map<string, string | true>;
  unknown: string[];
}

function flagByName(name: string): FlagSpec | undefined {
  return FLAGS.find((flag) => flag.long === name);
}

function flagByShort(letter: string): FlagSpec | undefined {
  return FLAGS.find((flag) => flag.short === letter);
}

/** Options and arguments apart; `--` ends the options. Unknown options are collected, reported once the command is known. */
function split(argv: readonly string[]): SplitArgs {
  const positionals: string[] = [];
  const flags = new Map<string, string | true>();
  const unknown: string[] = [];
  let optionsEnded = false;
  for (let i = 0; i < argv.length; i += 1) {
    const token = argv[i]!;
    if (optionsEnded || !token.startsWith('-') || token === '-' || NEGATIVE_NUMBER.test(token)) {
      positionals.push(token);
      continue;
    }
    if (token === '--') {
      optionsEnded = true;
      continue;
    }
    const long = /^--([^=]+)(?:=(.*))?$/s.exec(token);
    const spec = long ? flagByName(long[1]!) : /^-[A-Za-z]$/.test(token) ? flagByShort(token[1]!) : undefined;
    if (!spec) {
      unknown.push(token);
      continue;
    }
    const inline = long?.[2];
    if (flags.has(spec.long)) throw new UsageError(`--${spec.long} is given twice`, undefined);
    if (!spec.value) {
      if (inline !== undefined) throw new UsageError(`--${spec.long} takes no value`, undefined);
      flags.set(spec.long, true);
      continue;
    }
    const value = inline ?? argv[i + 1];
    if (value === undefined || (inline === undefined && value.startsWith('-') && !NEGATIVE_NUMBER.test(value))) {
      throw new UsageError(`--${spec.long} needs a value (${spec.value})`, undefined);
    }
    if (inline === undefined) i += 1;
    flags.set(spec.long, value);
  }
  return { positionals, flags, unknown };
}

function isGroup(word: string | undefined): word is CommandGroup {
  return word !== undefined && Object.hasOwn(COMMAND_GROUPS, word);
}

function resolveTopic(words: readonly string[]): HelpTopic | undefined {
  const joined = words.join(' ');
  if (joined === '') return undefined;
  if (isGroup(joined) || (COMMAND_NAMES as readonly string[]).includes(joined)) return joined as HelpTopic;
  throw new UsageError(`no help for "${joined}": it is not a command`, undefined);
}

/** Which command the leading arguments name, and the arguments left for it. */
function resolveCommand(positionals: readonly string[], wantsHelp: boolean): { command: HelpTopic; args: string[] } {
  const [first, second] = positionals;
  if (first === 'status' || first === 'scale-workers' || first === 'spend') return { command: first, args: positionals.slice(1) };
  if (isGroup(first)) {
    const subcommands: readonly string[] = COMMAND_GROUPS[first];
    const expected = subcommands.join(', ').replace(/, ([^,]+)$/, ' or $1');
    if (second !== undefined && subcommands.includes(second))
      return { command: `${first} ${second}` as CommandName, args: positionals.slice(2) };
    if (second === undefined) {
      if (wantsHelp) return { command: first, args: [] };
      throw new UsageError(`${first} needs a subcommand: ${expected}`, first);
    }
    throw new UsageError(`unknown ${first} subcommand "${second}" (expected ${expected})`, first);
  }
  throw new UsageError(`unknown command "${first}"`, undefined);
}

function stringFlag(flags: Map<string, string | true>, name: string): string | undefined {
  const value = flags.get(name);
  return typeof value === 'string' ? value : undefined;
}

function wholeNumber(raw: string, what: string, min: number, max: number, topic: HelpTopic): number {
  if (!/^\d{1,7}$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new UsageError(`${what} must be a whole number from ${min} to ${max}, got "${raw}"`, topic);
  }
  return Number(raw);
}

function kubeTarget(flags: Map<string, string | true>, topic: HelpTopic): KubeTarget {
  const namespace = stringFlag(flags, 'namespace');
  if (namespace !== undefined && !NAMESPACE_PATTERN.test(namespace)) {
    throw new UsageError(`--namespace must be a Kubernetes namespace name (lower-case letters, digits, -), got "${namespace}"`, topic);
  }
  const selector = stringFlag(flags, 'selector');
  if (selector !== undefined && selector.trim() === '') throw new UsageError('--selector must not be empty', topic);
  const context = stringFlag(flags, 'context');
  if (context !== undefined && context.trim() === '') throw new UsageError('--context must not be empty', topic);
  return { namespace, selector: selector?.trim(), context };
}

function operatorFlag(flags: Map<string, string | true>, topic: HelpTopic): string | undefined {
  const operator = stringFlag(flags, 'operator');
  if (operator !== undefined && !OPERATOR_ID_PATTERN.test(operator)) {
    throw new UsageError(`--operator must be 1–128 characters: letters, digits, . _ : @ | - (got "${operator}")`, topic);
  }
  return operator;
}

/** The one id argument of a command, a UUID; lower-cased, as the services write them. */
function oneUuid(args: readonly string[], what: string, example: string, topic: HelpTopic): string {
  if (args.length === 0) throw new UsageError(`${topic} needs the ${what}, e.g. \`atelier-ops ${example}\``, topic);
  noArguments(args.slice(1), topic);
  if (!UUID_PATTERN.test(args[0]!)) throw new UsageError(`not a ${what}: "${args[0]}" (ids are UUIDs)`, topic);
  return args[0]!.toLowerCase();
}

function noArguments(args: readonly string[], topic: HelpTopic): void {
  if (args.length > 0) throw new UsageError(`unexpected argument "${args[0]}"`, topic);
}

/**
 * Reads a command line (without `node` and the script). Throws UsageError, naming the command
 * whose usage should be shown, for anything it cannot run.
 */
export function parseArgs(argv: readonly string[]): CliCommand {
  const { positionals, flags, unknown } = split(argv);
  const wantsHelp = flags.has('help');
  if (positionals[0] === 'help') {
    if (unknown[0] !== undefined) throw new UsageError(`unknown option ${unknown[0]}`, undefined);
    return { name: 'help', topic: resolveTopic(positionals.slice(1)) };
  }
  if (positionals.length === 0) {
    if (unknown[0] !== undefined) throw new UsageError(`unknown option ${unknown[0]}`, undefined);
    if (wantsHelp) return { name: 'help', topic: undefined };
    throw new UsageError('no command given', undefined);
  }
  const { command, args } = resolveCommand(positionals, wantsHelp);
  if (unknown[0] !== undefined) throw new UsageError(`unknown option ${unknown[0]}`, command);
  if (isGroup(command)) return { name: 'help', topic: command };
  for (const name of flags.keys()) {
    if (!flagByName(name)!.commands.includes(command)) throw new UsageError(`--${name} does not apply to ${command}`, command);
  }
  if (wantsHelp) return { name: 'help', topic: command };

  switch (command) {
    case 'status':
      noArguments(args, command);
      return { name: command, kube: kubeTarget(flags, command), json: flags.has('json') };
    case 'scale-workers': {
      if (args.length === 0)
        throw new UsageError('scale-workers needs the number of replicas, e.g. `atelier-ops scale-workers 4`', command);
      noArguments(args.slice(1), command);
      const replicas = wholeNumber(args[0]!, 'the number of replicas', 0, MAX_REPLICAS, command);
      return { name: command, kube: kubeTarget(flags, command), replicas, force: flags.has('force') };
    }
    case 'jobs show':
      return { name: command, jobId: oneUuid(args, 'job id', 'jobs show <job-id>', command), json: flags.has('json') };
    case 'jobs cancel': {
      const jobId = oneUuid(args, 'job id', 'jobs cancel <job-id>', command);
      return { name: command, jobId, operator: operatorFlag(flags, command) };
    }
    case 'dead-letters audit':
    case 'dead-letters list': {
      noArguments(args, command);
      const limitFlag = stringFlag(flags, 'limit');
      const limit = limitFlag === undefined ? DEFAULT_LIST_LIMIT : wholeNumber(limitFlag, '--limit', 1, MAX_LIST_LIMIT, command);
      return { name: command, limit, json: flags.has('json') };
    }
    case 'dead-letters replay': {
      if (args.length === 0)
        throw new UsageError('dead-letters replay needs at least one event id (see `atelier-ops dead-letters list`)', command);
      const bad = args.filter((id) => !EVENT_ID_PATTERN.test(id));
      if (bad.length > 0)
        throw new UsageError(`not an outbox event id: ${bad.map((id) => `"${id}"`).join(', ')} (ids are positive integers)`, command);
      const operator = operatorFlag(flags, command);
      // The same id twice is one replay: the second would only be refused as "not dead".
      return { name: command, eventIds: [...new Set(args)], operator };
    }
    case 'catalog list': {
      noArguments(args, command);
      const kind = stringFlag(flags, 'kind');
      if (kind !== undefined && !(CATALOG_KINDS as readonly string[]).includes(kind)) {
        throw new UsageError(`--kind must be ${CATALOG_KINDS.join(' or ')}, got "${kind}"`, command);
      }
      return { name: command, kind: kind as CatalogKind | undefined, json: flags.has('json') };
    }
    case 'spend':
      noArguments(args, command);
      return { name: command, json: flags.has('json') };
    case 'catalog enable':
    case 'catalog disable': {
      const [entry, ...rest] = args;
      if (entry === undefined || !(CATALOG_ENTRY_KINDS as readonly string[]).includes(entry)) {
        throw new UsageError(
          `${command} needs model or style, then its id, e.g. \`atelier-ops ${command} style <id>\`${entry === undefined ? '' : ` (got "${entry}")`}`,
          command,
        );
      }
      const id = oneUuid(rest, `${entry} id`, `${command} ${entry} <id>`, command);
      return { name: command, entry: entry as CatalogEntryKind, id };
    }
    case 'credentials rewrap': {
      noArguments(args, command);
      const batchFlag = stringFlag(flags, 'batch');
      return { name: command, batch: batchFlag === undefined ? 100 : wholeNumber(batchFlag, '--batch', 1, 1000, command) };
    }
  }
}
