import { ConfigError } from '@atelier/config';
import { jobsV1, type jobsAdminV1 } from '@atelier/contracts';
import { AppError, ErrorCode, isAppError } from '@atelier/errors';
import type { CliCommand } from './cli-args.js';
import type { CommandContext } from './command-context.js';
import { readConsumerLag } from './consumer-lag.js';
import type { ExitCode } from './exit-codes.js';
import { JOBS_ADMIN_API } from './operator-apis.js';
import { connectOperatorApi, peerError } from './operator-grpc.js';
import { connectKube, loadKubeModule } from './kube-client.js';
import {
  assessStatus,
  formatStatusJson,
  formatStatusTable,
  type JobsBacklog,
  type QueueName,
  type Section,
  type SectionError,
  type StatusSources,
} from './status-report.js';
import { withDeadline } from './with-deadline.js';

type StatusCommand = Extract<CliCommand, { name: 'status' }>;

const QUEUE_NAMES: Readonly<Record<number, QueueName>> = {
  [jobsV1.JobQueue.INTERACTIVE]: 'interactive',
  [jobsV1.JobQueue.BACKGROUND]: 'background',
};

function sectionError(error: unknown): SectionError {
  if (error instanceof ConfigError) {
    return { code: 'CONFIG', reason: 'INVALID_CONFIGURATION', message: error.problems.map((p) => `${p.variable} ${p.problem}`).join('; ') };
  }
  if (isAppError(error)) return { code: error.code, reason: error.reason, message: error.message };
  return { code: ErrorCode.INTERNAL, reason: undefined, message: error instanceof Error ? error.message : String(error) };
}

/**
 * Runs one source to a Section: its failure is reported, not thrown, so that one unreachable
 * system never hides what the others say. The deadline is a backstop over the per-call ones
 * (a kubeconfig exec credential plugin, for one, has no deadline of its own).
 */
async function settle<T>(what: string, timeoutMs: number, work: () => Promise<T>): Promise<Section<T>> {
  try {
    const value = await withDeadline(
      work(),
      timeoutMs * 2 + 1_000,
      () => new AppError(ErrorCode.DEADLINE_EXCEEDED, `${what} did not answer in time`, { reason: 'TIMEOUT' }),
    );
    return { ok: true, value };
  } catch (error) {
    return { ok: false, error: sectionError(error) };
  }
}

function toBacklog(stats: jobsAdminV1.GetQueueStatsResponse): JobsBacklog {
  return {
    queues: stats.queues.map((q) => ({
      queue: QUEUE_NAMES[q.queue] ?? 'unspecified',
      ready: q.ready,
      delayed: q.delayed,
      running: q.running,
      oldestReadyAgeMs: q.oldestReadyAgeMs,
    })),
    outboxPending: stats.outboxPending,
    outboxDead: stats.outboxDead,
    outboxOldestPendingAgeMs: stats.outboxOldestPendingAgeMs,
    expiredLeases: stats.expiredLeases,
  };
}

/** Reads Kubernetes, NATS and jobs at the same time; each answers or says why not. */
export async function gatherStatus(command: StatusCommand, { config }: CommandContext): Promise<StatusSources> {
  const namespace = command.kube.namespace ?? config.ATELIER_NAMESPACE;
  const selector = command.kube.selector ?? config.ATELIER_SELECTOR;
  const timeoutMs = config.ATELIER_OPS_TIMEOUT_MS;
  let kubeContext: string | undefined;

  // Before any deadline starts: NATS's and jobs' would run out while client-node loads, and a
  // status must not blame them for our own start-up. A package that cannot load fails the
  // Kubernetes section below, as before.
  await loadKubeModule().catch(() => undefined);
  const [kubernetes, consumers, jobs] = await Promise.all([
    settle('the Kubernetes API', timeoutMs, async () => {
      const kube = await connectKube({ context: command.kube.context, timeoutMs });
      kubeContext = kube.context;
      const [deployments, autoscalers] = await Promise.all([
        kube.listDeployments(namespace, selector),
        settle('the Kubernetes API', timeoutMs, () => kube.listAutoscalers(namespace)),
      ]);
      return { deployments, autoscalers };
    }),
    settle('NATS', timeoutMs, () =>
      readConsumerLag({ natsUrl: config.NATS_URL, credentials: config, streamPrefix: config.NATS_STREAM_PREFIX, timeoutMs }),
    ),
    settle('jobs', timeoutMs, async () => {
      const admin = connectOperatorApi(JOBS_ADMIN_API, config, timeoutMs);
      try {
        return toBacklog(await admin.getQueueStats({}));
      } catch (error) {
        throw peerError(error, JOBS_ADMIN_API, config.JOBS_ADDR, namespace);
      } finally {
        admin.close();
      }
    }),
  ]);

  return {
    namespace,
    selector,
    kubeContext,
    jobsAddress: config.JOBS_ADDR,
    streamPrefix: config.NATS_STREAM_PREFIX,
    kubernetes,
    consumers,
    jobs,
  };
}

/** `atelier-ops status`: prints the report and answers its exit status (README, "Exit status"). */
export async function statusCommand(command: StatusCommand, context: CommandContext): Promise<ExitCode> {
  const report = assessStatus(await gatherStatus(command, context));
  context.io.stdout.write(command.json ? formatStatusJson(report) : formatStatusTable(report));
  return report.exitCode;
}
