import type { CliCommand } from './cli-args.js';
import type { CommandContext } from './command-context.js';
import { ExitCode } from './exit-codes.js';
import { JOBS_ADMIN_API } from './operator-apis.js';
import { connectOperatorApi, peerError } from './operator-grpc.js';
import { cancelledLine, formatJobJson, formatJobTimeline } from './job-report.js';
import { defaultOperatorId } from './ops-config.js';
import { cliActor } from './operator-actor.js';

type ShowCommand = Extract<CliCommand, { name: 'jobs show' }>;
type CancelCommand = Extract<CliCommand, { name: 'jobs cancel' }>;

/** `atelier-ops jobs show <id>`: the job, its transitions and its attempts (GetJobDetails). */
export async function showJobCommand(command: ShowCommand, { io, config }: CommandContext): Promise<ExitCode> {
  const admin = connectOperatorApi(JOBS_ADMIN_API, config, config.ATELIER_OPS_TIMEOUT_MS);
  try {
    const details = await admin.getJobDetails({ jobId: command.jobId });
    io.stdout.write(command.json ? formatJobJson(details) : formatJobTimeline(details));
    return ExitCode.OK;
  } catch (error) {
    throw peerError(error, JOBS_ADMIN_API, config.JOBS_ADDR, config.ATELIER_NAMESPACE);
  } finally {
    admin.close();
  }
}

/**
 * `atelier-ops jobs cancel <id>`: any user's job, as its owner's cancel would. A job that already
 * ended is refused by jobs (JOB_ALREADY_FINISHED, naming its status): exit 1 like any refusal.
 */
export async function cancelJobCommand(command: CancelCommand, { io, config }: CommandContext): Promise<ExitCode> {
  const operatorId = command.operator ?? config.ATELIER_OPERATOR_ID ?? defaultOperatorId(io.env);
  const admin = connectOperatorApi(JOBS_ADMIN_API, config, config.ATELIER_OPS_TIMEOUT_MS);
  try {
    const { job } = await admin.cancelJob({
      jobId: command.jobId,
      operatorId,
      actor: cliActor(command, config, io.env),
    });
    io.stdout.write(cancelledLine(job, command.jobId));
    return ExitCode.OK;
  } catch (error) {
    throw peerError(error, JOBS_ADMIN_API, config.JOBS_ADDR, config.ATELIER_NAMESPACE);
  } finally {
    admin.close();
  }
}
