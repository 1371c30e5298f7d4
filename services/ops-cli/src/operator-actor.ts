import type { commonV1 } from '@atelier/contracts';
import type { CliCommand } from './cli-args.js';
import { defaultOperatorId, type OpsConfig } from './ops-config.js';

/**
 * Who runs a command that changes something, for the audit log of the service it changes: the
 * operator (`--operator`, else ATELIER_OPERATOR_ID, else the login), in the role "cli" (the CLI
 * acts with the cluster's operator certificate, not a console role), and the command run.
 */
export function cliActor(
  command: CliCommand,
  config: Pick<OpsConfig, 'ATELIER_OPERATOR_ID'>,
  env: NodeJS.ProcessEnv,
): commonV1.OperatorActor {
  const flagged = 'operator' in command ? command.operator : undefined;
  return {
    subject: flagged ?? config.ATELIER_OPERATOR_ID ?? defaultOperatorId(env),
    role: 'cli',
    route: `atelier-ops ${command.name}`,
  };
}
