import { jobsEventsV1 } from '@atelier/contracts';
import { AppError, ErrorCode } from '@atelier/errors';
import { backoffDelayMs } from '@atelier/lifecycle';
import type { Logger } from '@atelier/logging';
import { startDurablePull, type DurablePull, type JetStreamClient, type JobsTopology, type JsMsg } from '@atelier/nats';
import type { ProviderCallRecording } from '../peers/provider-call-ledger.js';
import type { ProviderClients } from '../peers/provider/provider-clients.js';
import { ProviderFailure } from '../peers/provider/provider-failure.js';

/** Between tries of one cancel: from one second up to a minute. */
const CANCEL_BACKOFF = { baseMs: 1_000, maxMs: 60_000 };

export interface ProviderCancelConsumerOptions {
  js: JetStreamClient;
  topology: JobsTopology;
  /** The vendor clients: a user-key job's prediction is cancelled with that user's key. */
  providers: ProviderClients;
  logger: Logger;
  /** Declares the stream and the consumer again when JetStream reports them gone. */
  restoreTopology: () => Promise<void>;
  onCancelled?: () => void;
  /**
   * The usage ledger: each cancel is recorded, as a call of no attempt (0) whose provider model
   * and version jobs fills from the job's snapshot (the task does not carry them).
   */
  calls?: Pick<ProviderCallRecording, 'clientFor'>;
  /**
   * How long each pull waits at NATS (WORKER_PULL_EXPIRES_MS, as the dispatch pulls): a cancel
   * handed into a frozen worker's pull waits there until the pull lapses, so a short pull lets the
   * next one go to a live worker.
   */
  pullExpiresMs?: number;
}

/**
 * Executes "cancel this prediction at the vendor" tasks (ProviderCancel), written by the jobs
 * service in the same transaction that ended a job without its output. The worker that ran the
 * job may be dead, or the job may have been waiting for its next attempt: any worker does it, once
 * (a durable consumer all workers share on the work-queue stream). A vendor that cannot be reached
 * is tried again with growing pauses, for as long as it takes; a prediction the vendor no longer
 * knows needs no cancel.
 */
export class ProviderCancelConsumer {
  private pull: DurablePull | undefined;

  constructor(private readonly options: ProviderCancelConsumerOptions) {}

  async start(): Promise<void> {
    const { js, topology, logger } = this.options;
    this.pull = await startDurablePull({
      js,
      stream: topology.jobsStream,
      consumer: topology.controlConsumerName('provider-cancel'),
      maxMessages: 16,
      expiresMs: this.options.pullExpiresMs,
      declare: this.options.restoreTopology,
      logger,
      handle: async (message) => {
        // Not awaited: one slow vendor must not hold the others' cancels up.
        void this.handle(message);
      },
    });
  }

  async stop(): Promise<void> {
    await this.pull?.stop();
  }

  /** Opens its pull again (its consumer was declared again on another consumer's word). */
  restartPull(): void {
    this.pull?.restart();
  }

  private async handle(message: JsMsg): Promise<void> {
    const { providers, logger } = this.options;
    let task: jobsEventsV1.ProviderCancel;
    try {
      task = jobsEventsV1.ProviderCancel.fromJSON(message.json());
    } catch (error) {
      logger.error({ err: error, subject: message.subject }, 'undecodable provider cancel task: terminating it');
      message.term();
      return;
    }
    if (!providers.platform.has(task.providerCode)) {
      logger.error({ jobId: task.jobId, providerCode: task.providerCode }, 'no client for this provider: the cancel cannot be made');
      message.term();
      return;
    }
    try {
      const vendor = await providers.forCancel(task.jobId, task.providerCode, task.providerRequestId).catch((error: unknown) => {
        // jobs will not hand the user's key out (the job is not one that ended without its output
        // within a day, or another prediction): nothing this worker may cancel.
        if (
          error instanceof AppError &&
          (error.code === ErrorCode.ABORTED || error.code === ErrorCode.FAILED_PRECONDITION || error.code === ErrorCode.NOT_FOUND)
        ) {
          return undefined;
        }
        throw error;
      });
      if (!vendor) {
        logger.warn(
          { jobId: task.jobId, predictionId: task.providerRequestId },
          "the job's key is not available for this cancel: dropping it",
        );
        message.ack();
        return;
      }
      const provider =
        this.options.calls?.clientFor(vendor.client, {
          jobId: task.jobId,
          attempt: 0,
          providerCode: task.providerCode,
          providerModel: '',
          modelVersion: '',
          credential: { mode: vendor.credential.mode, id: vendor.credential.id },
        }) ?? vendor.client;
      await provider.cancel(task.providerRequestId);
      this.options.onCancelled?.();
      logger.info({ jobId: task.jobId, predictionId: task.providerRequestId }, 'prediction cancelled at the provider');
      message.ack();
    } catch (error) {
      if (error instanceof ProviderFailure && error.abandonsPrediction) {
        message.ack(); // the vendor does not know it (any more): nothing runs to cancel
        return;
      }
      const delayMs = backoffDelayMs(message.info.deliveryCount, CANCEL_BACKOFF);
      logger.warn(
        {
          jobId: task.jobId,
          predictionId: task.providerRequestId,
          delayMs,
          transient: error instanceof ProviderFailure && error.transient,
          err: error,
        },
        'cancel at the provider failed; trying again later',
      );
      message.nak(delayMs);
    }
  }
}
