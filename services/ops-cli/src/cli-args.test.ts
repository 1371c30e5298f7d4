import { describe, expect, it } from 'vitest';
import { parseArgs } from './cli-args.js';
import { usageText } from './cli-usage.js';
import { UsageError } from './usage-error.js';

function usageError(argv: string[]): UsageError {
  try {
    parseArgs(argv);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return error as UsageError;
  }
  throw new Error(`"${argv.join(' ')}" should have been refused`);
}

const noKube = { namespace: undefined, selector: undefined, context: undefined };

describe('cli args - commands', () => {
  it('reads status with its options before or after the command, long, short and --name=value', () => {
    expect(parseArgs(['status'])).toEqual({ name: 'status', kube: noKube, json: false });
    expect(
      parseArgs(['--context', 'prod', 'status', '-n', 'atelier-prod', '--selector=app.kubernetes.io/instance=blue', '--json']),
    ).toEqual({
      name: 'status',
      kube: { namespace: 'atelier-prod', selector: 'app.kubernetes.io/instance=blue', context: 'prod' },
      json: true,
    });
  });

  it('reads scale-workers with its replica count and --force', () => {
    expect(parseArgs(['scale-workers', '0'])).toEqual({ name: 'scale-workers', kube: noKube, replicas: 0, force: false });
    expect(parseArgs(['scale-workers', '--force', '1000', '-l', 'a=b'])).toEqual({
      name: 'scale-workers',
      kube: { ...noKube, selector: 'a=b' },
      replicas: 1000,
      force: true,
    });
  });

  it('reads dead-letters list and replay', () => {
    expect(parseArgs(['dead-letters', 'list'])).toEqual({ name: 'dead-letters list', limit: 20, json: false });
    expect(parseArgs(['dead-letters', 'list', '--limit', '500', '--json'])).toEqual({ name: 'dead-letters list', limit: 500, json: true });
    expect(parseArgs(['dead-letters', 'replay', '12', '7', '12', '--operator', 'alice@example.org'])).toEqual({
      name: 'dead-letters replay',
      eventIds: ['12', '7'],
      operator: 'alice@example.org',
    });
  });

  it('reads jobs show and cancel, ids lower-cased', () => {
    expect(parseArgs(['jobs', 'show', '01938c1e-7a3b-7c2e-9d41-3f0a5b6c7d8e', '--json'])).toEqual({
      name: 'jobs show',
      jobId: '01938c1e-7a3b-7c2e-9d41-3f0a5b6c7d8e',
      json: true,
    });
    expect(parseArgs(['jobs', 'cancel', '01938C1E-7A3B-7C2E-9D41-3F0A5B6C7D8E', '--operator', 'alice'])).toEqual({
      name: 'jobs cancel',
      jobId: '01938c1e-7a3b-7c2e-9d41-3f0a5b6c7d8e',
      operator: 'alice',
    });
  });

  it('reads dead-letters audit, catalog list and catalog enable|disable', () => {
    expect(parseArgs(['dead-letters', 'audit', '--limit', '150'])).toEqual({ name: 'dead-letters audit', limit: 150, json: false });
    expect(parseArgs(['catalog', 'list'])).toEqual({ name: 'catalog list', kind: undefined, json: false });
    expect(parseArgs(['spend'])).toEqual({ name: 'spend', json: false });
    expect(parseArgs(['spend', '--json'])).toEqual({ name: 'spend', json: true });
    expect(parseArgs(['catalog', 'list', '--kind=image', '--json'])).toEqual({ name: 'catalog list', kind: 'image', json: true });
    expect(parseArgs(['catalog', 'disable', 'style', '01938c1e-7a3b-7c2e-9d41-3f0a5b6c7d8e'])).toEqual({
      name: 'catalog disable',
      entry: 'style',
      id: '01938c1e-7a3b-7c2e-9d41-3f0a5b6c7d8e',
    });
    expect(parseArgs(['catalog', 'enable', 'model', '01938c1e-7a3b-7c2e-9d41-3f0a5b6c7d8e'])).toEqual({
      name: 'catalog enable',
      entry: 'model',
      id: '01938c1e-7a3b-7c2e-9d41-3f0a5b6c7d8e',
    });
  });

  it('answers help for --help, -h and `help <command>`, wherever it stands', () => {
    expect(parseArgs(['--help'])).toEqual({ name: 'help', topic: undefined });
    expect(parseArgs(['help'])).toEqual({ name: 'help', topic: undefined });
    expect(parseArgs(['status', '-h'])).toEqual({ name: 'help', topic: 'status' });
    expect(parseArgs(['scale-workers', '--help'])).toEqual({ name: 'help', topic: 'scale-workers' });
    expect(parseArgs(['dead-letters', '--help'])).toEqual({ name: 'help', topic: 'dead-letters' });
    expect(parseArgs(['help', 'dead-letters', 'replay'])).toEqual({ name: 'help', topic: 'dead-letters replay' });
    // Help wins over missing arguments: `dead-letters replay --help` needs no id.
    expect(parseArgs(['dead-letters', 'replay', '--help'])).toEqual({ name: 'help', topic: 'dead-letters replay' });
  });

  it('takes everything after -- as arguments', () => {
    expect(usageError(['dead-letters', 'replay', '--', '--json']).message).toBe(
      'not an outbox event id: "--json" (ids are positive integers)',
    );
  });
});

describe('cli args - refusals', () => {
  it.each([
    [['scale-workers'], 'scale-workers needs the number of replicas, e.g. `atelier-ops scale-workers 4`'],
    [['scale-workers', '-1'], 'the number of replicas must be a whole number from 0 to 1000, got "-1"'],
    [['scale-workers', '1001'], 'the number of replicas must be a whole number from 0 to 1000, got "1001"'],
    [['scale-workers', '2.5'], 'the number of replicas must be a whole number from 0 to 1000, got "2.5"'],
    [['scale-workers', 'three'], 'the number of replicas must be a whole number from 0 to 1000, got "three"'],
    [['scale-workers', '3', '4'], 'unexpected argument "4"'],
    [['dead-letters', 'replay'], 'dead-letters replay needs at least one event id (see `atelier-ops dead-letters list`)'],
    [['dead-letters', 'replay', '12', 'abc', '0'], 'not an outbox event id: "abc", "0" (ids are positive integers)'],
    [['dead-letters', 'list', '--limit', '0'], '--limit must be a whole number from 1 to 1000, got "0"'],
    [['dead-letters', 'list', '--limit', 'all'], '--limit must be a whole number from 1 to 1000, got "all"'],
    [
      ['dead-letters', 'replay', '1', '--operator', 'has space'],
      '--operator must be 1–128 characters: letters, digits, . _ : @ | - (got "has space")',
    ],
    [['status', '--namespace', 'Bad_NS'], '--namespace must be a Kubernetes namespace name (lower-case letters, digits, -), got "Bad_NS"'],
    [['status', '--selector', ' '], '--selector must not be empty'],
    [['status', 'extra'], 'unexpected argument "extra"'],
    [['jobs', 'show'], 'jobs show needs the job id, e.g. `atelier-ops jobs show <job-id>`'],
    [['jobs', 'show', '42'], 'not a job id: "42" (ids are UUIDs)'],
    [['jobs', 'cancel', '01938c1e-7a3b-7c2e-9d41-3f0a5b6c7d8e', 'x'], 'unexpected argument "x"'],
    [['catalog', 'list', '--kind', 'audio'], '--kind must be image or video, got "audio"'],
    [['catalog', 'enable'], 'catalog enable needs model or style, then its id, e.g. `atelier-ops catalog enable style <id>`'],
    [
      ['catalog', 'disable', 'pet', '01938c1e-7a3b-7c2e-9d41-3f0a5b6c7d8e'],
      'catalog disable needs model or style, then its id, e.g. `atelier-ops catalog disable style <id>` (got "pet")',
    ],
    [['catalog', 'disable', 'model'], 'catalog disable needs the model id, e.g. `atelier-ops catalog disable model <id>`'],
    [['dead-letters', 'audit', '--limit', '1001'], '--limit must be a whole number from 1 to 1000, got "1001"'],
  ])('%j → %s', (argv, message) => {
    expect(usageError(argv).message).toBe(message);
  });

  it('refuses unknown commands and subcommands, showing the overview or the group', () => {
    expect(usageError([])).toMatchObject({ message: 'no command given', topic: undefined });
    expect(usageError(['deploy'])).toMatchObject({ message: 'unknown command "deploy"', topic: undefined });
    expect(usageError(['dead-letters'])).toMatchObject({
      message: 'dead-letters needs a subcommand: list, replay or audit',
      topic: 'dead-letters',
    });
    expect(usageError(['dead-letters', 'purge'])).toMatchObject({
      message: 'unknown dead-letters subcommand "purge" (expected list, replay or audit)',
      topic: 'dead-letters',
    });
    expect(usageError(['jobs'])).toMatchObject({ message: 'jobs needs a subcommand: show or cancel', topic: 'jobs' });
    expect(usageError(['catalog', 'upsert'])).toMatchObject({
      message: 'unknown catalog subcommand "upsert" (expected list, enable or disable)',
      topic: 'catalog',
    });
    expect(usageError(['help', 'deploy'])).toMatchObject({ message: 'no help for "deploy": it is not a command' });
  });

  it("refuses unknown options and options of another command, showing that command's usage", () => {
    expect(usageError(['status', '--watch'])).toMatchObject({ message: 'unknown option --watch', topic: 'status' });
    expect(usageError(['status', '-x'])).toMatchObject({ message: 'unknown option -x', topic: 'status' });
    expect(usageError(['--verbose'])).toMatchObject({ message: 'unknown option --verbose', topic: undefined });
    expect(usageError(['dead-letters', 'list', '--force'])).toMatchObject({
      message: '--force does not apply to dead-letters list',
      topic: 'dead-letters list',
    });
    expect(usageError(['scale-workers', '3', '--json'])).toMatchObject({
      message: '--json does not apply to scale-workers',
      topic: 'scale-workers',
    });
  });

  it('refuses options without their value, with a value they do not take, or given twice', () => {
    expect(usageError(['status', '--namespace']).message).toBe('--namespace needs a value (NS)');
    expect(usageError(['status', '--namespace', '--json']).message).toBe('--namespace needs a value (NS)');
    expect(usageError(['status', '--json=yes']).message).toBe('--json takes no value');
    expect(usageError(['status', '-n', 'a', '--namespace', 'b']).message).toBe('--namespace is given twice');
  });
});

describe('cli usage - texts', () => {
  it("lists every command in the overview and every option a command accepts in the command's help", () => {
    const overview = usageText(undefined);
    for (const command of ['status', 'scale-workers <replicas>', 'dead-letters list', 'dead-letters replay <id>...'])
      expect(overview).toContain(`  ${command}`);
    expect(overview).toContain('ATELIER_NAMESPACE');
    const scale = usageText('scale-workers');
    for (const option of ['-n, --namespace NS', '-l, --selector SELECTOR', '--context NAME', '--force', '-h, --help'])
      expect(scale).toContain(option);
    expect(scale).not.toContain('--json');
    for (const command of [
      'jobs show <id>',
      'jobs cancel <id>',
      'dead-letters audit',
      'catalog list',
      'catalog disable <model|style> <id>',
    ])
      expect(overview).toContain(`  ${command}`);
    expect(overview).toContain('CATALOG_ADDR');
    expect(usageText('catalog')).toContain('  disable   hide a model or style from the app');
    expect(usageText('jobs cancel')).toContain('--operator ID');
    expect(usageText('catalog list')).toContain('--kind KIND');
    expect(usageText('status', { brief: true })).not.toContain('Examples:');
  });
});
