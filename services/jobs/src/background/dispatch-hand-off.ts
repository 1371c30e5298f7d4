import type { jobsExecutionV1 } from '@atelier/contracts';
import type { SqlPool } from '@atelier/db';
import type { Logger } from '@atelier/logging';
import type { JobQueueName } from '@atelier/nats';
import { inSpan, SpanKind, type TraceCarrier } from '@atelier/telemetry';
import { announce, type AnnounceTargets } from '../announce/announce.js';
import type { WaitingWorkers } from '../announce/waiting-workers.js';
import { claimHoldingGated } from '../db/transitions/claim-sql.js';
import { release } from '../db/transitions/release-sql.js';
import type { JobRow, OutboxSubjects } from '../db/job-row.js';
import type { PublishableRow } from './outbox-publish.js';

type HandedOverJob = jobsExecutionV1.HandedOverJob;

/**
 * A job that carries its trace is handed over in a producer span of that trace, as its dispatch
 * would have been published in one (outbox-publish.ts); the worker continues from the span's
 * context. An untraced job is handed over bare.
 */
function handOverTrace(row: PublishableRow, queue: JobQueueName): Promise<TraceCarrier> | TraceCarrier {
  if (!row.trace_context) return {};
  return inSpan(
    'job.dispatch hand-over',
    {
      kind: SpanKind.PRODUCER,
      parent: row.trace_context,
      attributes: { 'messaging.operation.type': 'publish', 'atelier.dispatch.queue': queue, 'atelier.job.id': row.aggregate_id },
    },
    async (carrier) => carrier,
  );
}

export interface DispatchHandOffOptions {
  pool: SqlPool;
  waiting: WaitingWorkers<HandedOverJob>;
  leaseTtlMs: number;
  /** The dispatch subjects: which queue a dispatch row is bound for. */
  subjects: OutboxSubjects;
  /** Where a release writes its new dispatch (the relay's claim lane when it has one). */
  outboxSubjects: () => OutboxSubjects;
  announceTo: AnnounceTargets;
  /** What a worker is told of a job claimed for it: what ClaimJobs answers (rpc/claim-job.ts). */
  claimedJobOf: (row: JobRow) => jobsExecutionV1.ClaimedJob;
  /** Told of the jobs claimed, as ClaimJobs tells its metrics (the gates' start wait). */
  onClaimed: (rows: readonly JobRow[]) => void;
  logger: Logger;
}

/**
 * Dispatches handed straight to the workers waiting at this replica (AwaitJobs), instead of going
 * through NATS: the hand-over lane offers every batch of dispatch rows here before publishing.
 * The jobs are claimed for the waiting workers with the claim ClaimJobs makes (one statement; a
 * job a provider's gate may hold, or that is not claimable, is left to NATS), and each worker is
 * answered with its claimed jobs. The rows of the jobs handed over are settled as published: their
 * dispatch is done. A worker that gave up its call meanwhile is answered nothing, and its jobs are
 * released at once (queued again with a new dispatch, the attempt not charged); should that fail,
 * the lease expires and the reaper queues them again, as after a worker lost with ClaimJobs' answer.
 */
export class DispatchHandOff {
  private readonly waiting: WaitingWorkers<HandedOverJob>;

  constructor(private readonly options: DispatchHandOffOptions) {
    this.waiting = options.waiting;
  }

  /** Hands over what waiting workers have room for; answers the ids of the rows whose dispatch is done. */
  async deliver(rows: readonly PublishableRow[]): Promise<ReadonlySet<string>> {
    const delivered = new Set<string>();
    if (this.waiting.size === 0) return delivered;
    const now = Date.now();
    const dispatches = rows.flatMap((row) => {
      const queue = row.event_type === 'job.dispatch' && row.available_at.getTime() <= now ? this.queueOf(row.subject) : undefined;
      return queue ? [{ row, queue }] : [];
    });
    const assignments = this.waiting.assign(dispatches, (dispatch) => dispatch.queue);
    if (assignments.length === 0) return delivered;

    const { options } = this;
    const requests = assignments.flatMap(({ worker, items }) =>
      items.map(({ row }) => ({ jobId: row.aggregate_id, workerId: worker.workerId })),
    );
    let results;
    try {
      results = await claimHoldingGated(options.pool, requests, options.leaseTtlMs);
    } catch (error) {
      // Nothing claimed for sure: the workers wait on, and the rows go through NATS.
      for (const { worker } of assignments) this.waiting.settle(worker, []);
      options.logger.warn(
        { err: error, dispatches: requests.length },
        'claiming jobs for waiting workers failed; their dispatches go through NATS',
      );
      return delivered;
    }
    const claimedRows = results.flatMap((result) => (result.changed ? [result.job] : []));
    announce(options.announceTo, 'claimed', claimedRows);
    options.onClaimed(claimedRows);

    let next = 0;
    for (const { worker, items } of assignments) {
      const handed: { row: PublishableRow; job: JobRow; queue: JobQueueName }[] = [];
      for (const { row, queue } of items) {
        const result = results[next++]!;
        if (result.changed) handed.push({ row, job: result.job, queue });
      }
      for (const { row } of handed) delivered.add(row.id);
      const answer = await Promise.all(
        handed.map(async ({ row, job, queue }) => ({
          claimed: options.claimedJobOf(job),
          queue,
          traceContext: await handOverTrace(row, queue),
        })),
      );
      const answered = this.waiting.settle(worker, answer);
      if (answered) options.announceTo.metrics.handedOver.inc({ outcome: 'handed_over' }, handed.length);
      else
        await this.releaseFor(
          worker.workerId,
          handed.map(({ job }) => job.id),
        );
    }
    return delivered;
  }

  private queueOf(subject: string): JobQueueName | undefined {
    const { subjects } = this.options;
    if (subject === subjects.dispatchInteractive) return 'interactive';
    if (subject === subjects.dispatchBackground) return 'background';
    return undefined;
  }

  private async releaseFor(workerId: string, jobIds: readonly string[]): Promise<void> {
    const { options } = this;
    for (const jobId of jobIds) {
      try {
        const result = await release(
          options.pool,
          { jobId, workerId, reason: 'the waiting worker gave up its call' },
          options.outboxSubjects(),
        );
        if (result.changed) announce(options.announceTo, 'requeued', [result.job]);
        options.announceTo.metrics.handedOver.inc({ outcome: 'released' });
      } catch (error) {
        options.logger.warn({ err: error, jobId }, 'releasing a job its waiting worker gave up failed; its lease will expire instead');
      }
    }
  }
}
