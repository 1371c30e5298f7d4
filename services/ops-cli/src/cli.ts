import { ConfigError, loadConfig } from '@atelier/config';
import { checkNatsCredentials } from '@atelier/nats';
import { parseArgs, type CliCommand } from './cli-args.js';
import { usageText } from './cli-usage.js';
import type { CliIo, CommandContext } from './command-context.js';
import { listCatalogCommand, setCatalogEnabledCommand } from './catalog-command.js';
import { auditDeadLettersCommand, listDeadLettersCommand, replayDeadLettersCommand } from './dead-letters-command.js';
import { errorText } from './error-text.js';
import { ExitCode, exitCodeFor } from './exit-codes.js';
import { opsConfigSpec, type OpsConfig } from './ops-config.js';
import { cancelJobCommand, showJobCommand } from './jobs-command.js';
import { scaleWorkersCommand } from './scale-workers-command.js';
import { rewrapCredentialsCommand } from './credentials-command.js';
import { statusCommand } from './status-command.js';
import { spendCommand } from './spend-command.js';
import { UsageError } from './usage-error.js';

function run(command: Exclude<CliCommand, { name: 'help' }>, context: CommandContext): Promise<ExitCode> {
  switch (command.name) {
    case 'status':
      return statusCommand(command, context);
    case 'scale-workers':
      return scaleWorkersCommand(command, context);
    case 'dead-letters list':
      return listDeadLettersCommand(command, context);
    case 'dead-letters replay':
      return replayDeadLettersCommand(command, context);
    case 'dead-letters audit':
      return auditDeadLettersCommand(command, context);
    case 'jobs show':
      return showJobCommand(command, context);
    case 'jobs cancel':
      return cancelJobCommand(command, context);
    case 'catalog list':
      return listCatalogCommand(command, context);
    case 'catalog enable':
    case 'catalog disable':
      return setCatalogEnabledCommand(command, context);
    case 'spend':
      return spendCommand(command, context);
    case 'credentials rewrap':
      return rewrapCredentialsCommand(command, context);
  }
}

/**
 * Runs one command line to its exit status: parse (usage on stderr, 64), validate the
 * environment in full (78), run, and turn any failure into one actionable line on stderr.
 * Never throws; never exits the process (main.ts does).
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<ExitCode> {
  let command: CliCommand;
  try {
    command = parseArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr.write(`atelier-ops: ${error.message}\n\n${usageText(error.topic, { brief: true })}`);
    return ExitCode.USAGE;
  }
  if (command.name === 'help') {
    io.stdout.write(usageText(command.topic));
    return ExitCode.OK;
  }

  let config: OpsConfig;
  try {
    config = loadConfig(opsConfigSpec, io.env, [checkNatsCredentials]);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    io.stderr.write(`atelier-ops: ${error.message}\n`);
    return ExitCode.CONFIG;
  }

  try {
    return await run(command, { io, config });
  } catch (error) {
    io.stderr.write(`atelier-ops: ${errorText(error, { debug: config.ATELIER_OPS_DEBUG })}\n`);
    return exitCodeFor(error);
  }
}
