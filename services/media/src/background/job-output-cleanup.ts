import { jobsV1 } from '@atelier/contracts';
import { inTransaction, type SqlPool } from '@atelier/db';
import type { Logger } from '@atelier/logging';
import { LifecycleConsumer, type JobsTopology, type LifecycleOutcome } from '@atelier/nats';
import { lockOutputsOfJob, updateAssetsDeleted } from '../db/asset-sql.js';
import type { ObjectStore } from '../storage/object-store.js';

/**
 * A job that ends so never shows its output: whatever the worker stored for it is an orphan.
 * One durable consumer per event type, each filtered on its subject (several filter subjects on
 * one consumer need NATS 2.10), so media never sees the far more frequent other events.
 */
export const OUTPUTLESS_END_STATES = ['failed', 'cancelled'] as const;
export const outputCleanupConsumer = (state: (typeof OUTPUTLESS_END_STATES)[number]) => `media-output-cleanup-${state}`;

/**
 * Deletes the outputs stored for a job (objects first, then the rows, in one transaction: a
 * failed object delete rolls back and the event comes again). Answers how many were deleted.
 */
export async function deleteOutputsOfJob(pool: SqlPool, store: ObjectStore, jobId: string): Promise<number> {
  return inTransaction(pool, async (client) => {
    const outputs = await lockOutputsOfJob(client, jobId);
    if (outputs.length === 0) return 0;
    await store.deleteMany(outputs.map((output) => output.storage_key));
    await updateAssetsDeleted(
      client,
      outputs.map((output) => output.id),
    );
    return outputs.length;
  });
}

/**
 * The job's status as the jobs service has it (JobExecutionService.GetJobStatus), or undefined
 * when jobs does not know the job. Throws when jobs cannot be asked (the event comes back).
 */
export type JobStatusLookup = (jobId: string) => Promise<jobsV1.JobStatus | undefined>;

const ENDED_WITHOUT_OUTPUT: ReadonlySet<jobsV1.JobStatus> = new Set([jobsV1.JobStatus.FAILED, jobsV1.JobStatus.CANCELLED]);

export interface JobOutputCleanupOptions {
  pool: SqlPool;
  store: ObjectStore;
  /** Events are only hints: anyone able to publish on the subject could forge one. */
  jobStatus: JobStatusLookup;
  topology: JobsTopology;
  /** Copies of each stream (NATS_STREAM_REPLICAS): media declares the streams too. */
  streamReplicas: number;
  logger: Logger;
  /** Redelivery after this without an ack (a crashed replica's messages go to another). */
  ackWaitMs?: number;
}

/**
 * Removes the output a worker stored for a job that then failed or was cancelled without it —
 * the worker died after storing it and the jobs reaper ended the job on its last attempt, or the
 * job was cancelled meanwhile. A worker that is still alive deletes such an orphan itself; this
 * covers the one that is not. Driven by the jobs lifecycle events (at least once: deleting twice
 * finds nothing the second time), through a durable consumer shared by every media replica.
 */
export class JobOutputCleanup extends LifecycleConsumer {
  constructor(options: JobOutputCleanupOptions) {
    const { topology, streamReplicas, logger, ackWaitMs } = options;
    super({
      purpose: 'orphan output cleanup',
      topology,
      streamReplicas,
      consumers: OUTPUTLESS_END_STATES.map((state) => ({
        name: outputCleanupConsumer(state),
        filterSubject: topology.eventSubject(state),
      })),
      maxMessages: 32,
      ackWaitMs,
      logger,
      handle: (event, message) => cleanUpAfter(options, event.jobId, message.subject),
    });
  }
}

/** Deletes the outputs of a job that ended without them, once jobs confirms it did. */
async function cleanUpAfter(options: JobOutputCleanupOptions, jobId: string, subject: string): Promise<LifecycleOutcome> {
  const status = await options.jobStatus(jobId);
  if (status === undefined || !ENDED_WITHOUT_OUTPUT.has(status)) {
    options.logger.warn(
      { jobId, subject, status: status === undefined ? 'unknown' : jobsV1.JobStatus[status] },
      'a lifecycle event says a job ended without output, jobs says otherwise: keeping its outputs',
    );
    return 'term';
  }
  const deleted = await deleteOutputsOfJob(options.pool, options.store, jobId);
  if (deleted > 0) options.logger.info({ jobId, deleted }, 'deleted the orphan output of a job that ended without it');
  return 'ack';
}
