import { jobsEventsV1, jobsV1 } from '@atelier/contracts';
import { inTransaction, type SqlPool } from '@atelier/db';
import type { Logger } from '@atelier/logging';
import {
  ensureEventsConsumer,
  ensureJobStreams,
  jetstream,
  jetstreamManager,
  NAK_DELAY_MS,
  startDurablePull,
  type DurablePull,
  type JobsTopology,
  type JsMsg,
  type NatsConnection,
} from '@atelier/nats';
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
export class JobOutputCleanup {
  private pulls: DurablePull[] = [];

  constructor(private readonly options: JobOutputCleanupOptions) {}

  /** Declares the consumers and starts pulling, on a connected NATS. */
  async start(nats: NatsConnection): Promise<void> {
    const { topology, logger } = this.options;
    const jsm = await jetstreamManager(nats);
    // Media may start before jobs: both declare the streams, idempotently.
    const declare = async () => {
      await ensureJobStreams(jsm, topology, { replicas: this.options.streamReplicas });
      for (const state of OUTPUTLESS_END_STATES) {
        await ensureEventsConsumer(jsm, topology, {
          name: outputCleanupConsumer(state),
          filterSubject: topology.eventSubject(state),
          ackWaitMs: this.options.ackWaitMs ?? 30_000,
          maxDeliver: -1,
        });
      }
    };
    await declare();
    for (const state of OUTPUTLESS_END_STATES) {
      this.pulls.push(
        await startDurablePull({
          js: jetstream(nats),
          stream: topology.eventsStream,
          consumer: outputCleanupConsumer(state),
          maxMessages: 32,
          declare,
          logger,
          handle: (message) => this.handle(message),
        }),
      );
    }
  }

  async stop(): Promise<void> {
    await Promise.all(this.pulls.map((pull) => pull.stop()));
  }

  private async handle(message: JsMsg): Promise<void> {
    let event: jobsEventsV1.JobLifecycleEvent;
    try {
      event = jobsEventsV1.JobLifecycleEvent.fromJSON(message.json());
    } catch (error) {
      this.options.logger.error({ err: error, subject: message.subject }, 'undecodable lifecycle event: dropping it');
      message.term();
      return;
    }
    try {
      const status = await this.options.jobStatus(event.jobId);
      if (status === undefined || !ENDED_WITHOUT_OUTPUT.has(status)) {
        this.options.logger.warn(
          { jobId: event.jobId, subject: message.subject, status: status === undefined ? 'unknown' : jobsV1.JobStatus[status] },
          'a lifecycle event says a job ended without output, jobs says otherwise: keeping its outputs',
        );
        message.term();
        return;
      }
      const deleted = await deleteOutputsOfJob(this.options.pool, this.options.store, event.jobId);
      if (deleted > 0)
        this.options.logger.info({ jobId: event.jobId, deleted }, 'deleted the orphan output of a job that ended without it');
      message.ack();
    } catch (error) {
      this.options.logger.warn({ err: error, jobId: event.jobId }, 'orphan output cleanup failed; the event comes back');
      message.nak(NAK_DELAY_MS);
    }
  }
}
