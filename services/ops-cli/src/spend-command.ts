import { jobsUsageV1 } from '@atelier/contracts';
import type { CliCommand } from './cli-args.js';
import type { CommandContext } from './command-context.js';
import { ExitCode } from './exit-codes.js';
import { USAGE_API } from './operator-apis.js';
import { connectOperatorApi, peerError } from './operator-grpc.js';
import { formatSpendJson, formatSpendTable } from './spend-report.js';

type SpendCommand = Extract<CliCommand, { name: 'spend' }>;

/** `atelier-ops spend`: today's (UTC) spend per provider and per model, from the usage ledger (GetSpend). */
export async function spendCommand(command: SpendCommand, { io, config }: CommandContext): Promise<ExitCode> {
  const usage = connectOperatorApi(USAGE_API, config, config.ATELIER_OPS_TIMEOUT_MS);
  try {
    const to = new Date();
    const from = new Date(Date.UTC(to.getUTCFullYear(), to.getUTCMonth(), to.getUTCDate()));
    // A read one millisecond past now: the window is [from, to).
    const window = { from, to: new Date(to.getTime() + 1), credentialMode: '' };
    const [byProvider, byModel] = await Promise.all([
      usage.getSpend({ ...window, groupBy: jobsUsageV1.SpendGrouping.PROVIDER }),
      usage.getSpend({ ...window, groupBy: jobsUsageV1.SpendGrouping.MODEL }),
    ]);
    const report = { from, to, byProvider, byModel };
    io.stdout.write(command.json ? formatSpendJson(report) : formatSpendTable(report));
    return ExitCode.OK;
  } catch (error) {
    throw peerError(error, USAGE_API, config.JOBS_ADDR, config.ATELIER_NAMESPACE);
  } finally {
    usage.close();
  }
}
