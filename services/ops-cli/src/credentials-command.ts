import type { CliCommand } from './cli-args.js';
import type { CommandContext } from './command-context.js';
import { ExitCode } from './exit-codes.js';
import { CREDENTIALS_API } from './operator-apis.js';
import { connectOperatorApi, peerError } from './operator-grpc.js';
import { cliActor } from './operator-actor.js';

type RewrapCommand = Extract<CliCommand, { name: 'credentials rewrap' }>;

/** `atelier-ops credentials rewrap`: RewrapCredentials batch after batch until none is left under an older KEK. */
export async function rewrapCredentialsCommand(command: RewrapCommand, { io, config }: CommandContext): Promise<ExitCode> {
  const api = connectOperatorApi(CREDENTIALS_API, config, config.ATELIER_OPS_TIMEOUT_MS);
  try {
    let total = 0;
    for (;;) {
      const answer = await api.rewrapCredentials({ batchSize: command.batch, actor: cliActor(command, config, io.env) });
      total += answer.rewrapped;
      const remaining = Number(answer.remaining);
      // A batch that moved nothing while rows remain: those do not open (jobs logged them by id).
      if (remaining === 0 || answer.rewrapped === 0) {
        io.stdout.write(`rewrapped ${total} credential(s) to ${answer.currentKekId}; ${remaining} left under an older key\n`);
        return remaining === 0 ? ExitCode.OK : ExitCode.FAILURE;
      }
    }
  } catch (error) {
    throw peerError(error, CREDENTIALS_API, config.JOBS_ADDR, config.ATELIER_NAMESPACE);
  } finally {
    api.close();
  }
}
