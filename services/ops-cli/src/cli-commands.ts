// The command names alone, so that what a usage error names (usage-error.ts) and what the parser
// reads (cli-args.ts) share them without importing each other.

/** The commands, as typed after `atelier-ops`. */
export const COMMAND_NAMES = [
  'status',
  'scale-workers',
  'jobs show',
  'jobs cancel',
  'dead-letters list',
  'dead-letters replay',
  'dead-letters audit',
  'catalog list',
  'catalog enable',
  'catalog disable',
  'spend',
  'credentials rewrap',
] as const;
export type CommandName = (typeof COMMAND_NAMES)[number];

/** The words that group subcommands, each with the subcommands it takes. */
export const COMMAND_GROUPS = {
  jobs: ['show', 'cancel'],
  'dead-letters': ['list', 'replay', 'audit'],
  catalog: ['list', 'enable', 'disable'],
  credentials: ['rewrap'],
} as const;
export type CommandGroup = keyof typeof COMMAND_GROUPS;
/** What `--help` can explain: every command and every group. */
export type HelpTopic = CommandName | CommandGroup;
