import { jobsEventsV1 } from '@atelier/contracts';
import { backoffDelayMs } from '@atelier/lifecycle';
import type { Logger } from '@atelier/logging';
import {
  NAK_DELAY_MS,
  startDurablePull,
  type DurablePull,
  type JetStreamClient,
  type JobQueueName,
  type JobsTopology,
  type JsMsg,
} from '@atelier/nats';
import { inSpan, SpanKind, traceCarrierFrom } from '@atelier/telemetry';
import type { Settlement } from '../attempt/job-runner.js';
import type { WorkerMetrics } from '../worker-metrics.js';

/** A message handed back because the jobs service was unreachable: from a second, growing to ten. */
const RETRY_LATER_BACKOFF = { baseMs: 1_000, maxMs: 10_000 };

export interface QueueConsumerOptions {
  js: JetStreamClient;
  topology: JobsTopology;
  queue: JobQueueName;
  concurrency: number;
  ackWaitMs: number;
  /**
   * How long each pull waits at NATS (WORKER_PULL_EXPIRES_MS). A worker that freezes is handed
   * dispatches into the pulls it sent before until they expire: under two thirds of the lease, they
   * have expired by the time a job of it is taken over, so its new dispatch goes to a live worker
   * rather than waiting out the frozen one's ack wait.
   */
  pullExpiresMs?: number;
  handle: (dispatch: jobsEventsV1.JobDispatch, drain: AbortSignal) => Promise<Settlement>;
  logger: Logger;
  metrics: WorkerMetrics;
  /**
   * Declares the streams and this worker's consumers again, before a pull is reopened because
   * JetStream said its consumer or stream was gone (deleted by hand, a NATS server that lost its
   * state); see startDurablePull.
   */
  restoreTopology?: () => Promise<void>;
}

/**
 * Pulls one dispatch queue's durable consumer and runs up to `concurrency` jobs at once. While a
 * job runs its message is kept alive with `working()`, so the ack deadline never lapses mid-job;
 * the message is settled only after the outcome is recorded (ack), or handed back (nak with a
 * delay) or dropped (term, for finished or unknown jobs).
 */
export class QueueConsumer {
  private running = 0;
  private readonly idle: (() => void)[] = [];
  private pull: DurablePull | undefined;
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly drainController = new AbortController();
  /** The messages of the jobs running now, and since when (performance.now()). */
  private readonly working = new Map<JsMsg, number>();
  private keepAlive: NodeJS.Timeout | undefined;
  private draining = false;
  /** Told when a slot frees and no pulled message takes it (the job awaiter waits for one). */
  private slotFreed: (() => void) | undefined;

  constructor(private readonly options: QueueConsumerOptions) {}

  /** Opens the pull; fails when it cannot (at start-up a worker that cannot consume must not run). */
  async start(): Promise<void> {
    const { js, topology, queue, concurrency, logger } = this.options;
    if (concurrency === 0) return;
    // One timer for every message in hand: each running job's message is told `working()` at
    // least every third of the ack wait (a message that came in just after a tick waits for the
    // next one: at most two thirds of it), so its deadline never lapses mid-job.
    const everyMs = Math.max(500, Math.floor(this.options.ackWaitMs / 3));
    this.keepAlive = setInterval(() => {
      const now = performance.now();
      for (const [message, since] of this.working) if (now - since >= everyMs) message.working();
    }, everyMs);
    this.keepAlive.unref();
    this.pull = await startDurablePull({
      js,
      stream: topology.jobsStream,
      consumer: topology.consumerName(queue),
      maxMessages: concurrency,
      expiresMs: this.options.pullExpiresMs,
      declare: this.options.restoreTopology ?? (async () => {}),
      logger,
      handle: async (message) => {
        if (this.running >= concurrency) await new Promise<void>((resolve) => this.idle.push(resolve));
        this.occupy(this.process(message));
      },
    });
  }

  /** Slots free now; a job handed over (runHandedOver) takes one as a pulled one does. None while draining. */
  get freeSlots(): number {
    return this.draining ? 0 : Math.max(0, this.options.concurrency - this.running);
  }

  /** Calls `listener` whenever a slot frees and no pulled message takes it (one listener: the job awaiter). */
  onSlotFreed(listener: () => void): void {
    this.slotFreed = listener;
  }

  /**
   * Runs a job jobs claimed for this worker while it waited (AwaitJobs) in a slot of this queue,
   * beside the pulled ones, and drained with them; no message to settle: its outcome is in the
   * database, or its lease expires. Answers false, running nothing, once the drain has begun: the
   * caller hands the job back.
   */
  runHandedOver(run: (drain: AbortSignal) => Promise<unknown>): boolean {
    if (this.draining) return false;
    const { queue, metrics, logger } = this.options;
    metrics.inFlight.inc({ queue });
    this.occupy(
      run(this.drainController.signal)
        .catch((error: unknown) => logger.error({ err: error }, 'a handed-over job failed unexpectedly; its lease will expire'))
        .finally(() => metrics.inFlight.dec({ queue })),
    );
    return true;
  }

  private occupy(job: Promise<unknown>): void {
    this.running += 1;
    const task = job.finally(() => {
      this.running -= 1;
      this.inFlight.delete(task);
      this.idle.shift()?.();
      if (this.freeSlots > 0) this.slotFreed?.();
    });
    this.inFlight.add(task);
  }

  /** Opens its pull again (its consumer was declared again on another consumer's word). */
  restartPull(): void {
    this.pull?.restart();
  }

  /**
   * Stops pulling, lets running jobs finish for up to timeoutMs, then asks the rest to hand their
   * jobs back (release) and waits for them to settle their messages.
   */
  async drain(timeoutMs: number): Promise<void> {
    this.draining = true;
    // Not awaited yet: the pull's loop may be waiting for a free slot, which only finished jobs give.
    const pullStopped = this.pull?.stop();
    const settled = Promise.all(this.inFlight);
    const timedOut = await Promise.race([
      settled.then(() => false),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(true), timeoutMs).unref()),
    ]);
    if (timedOut) {
      this.options.logger.warn({ queue: this.options.queue, running: this.inFlight.size }, 'drain timeout: handing running jobs back');
      this.drainController.abort();
      await settled;
    }
    await pullStopped;
    clearInterval(this.keepAlive);
  }

  private async process(message: JsMsg): Promise<void> {
    const { queue, logger, metrics } = this.options;
    metrics.inFlight.inc({ queue });
    this.working.set(message, performance.now());
    try {
      let dispatch: jobsEventsV1.JobDispatch;
      try {
        dispatch = jobsEventsV1.JobDispatch.fromJSON(message.json());
      } catch (error) {
        logger.error({ err: error, subject: message.subject }, 'undecodable dispatch message: terminating it');
        message.term();
        return;
      }
      // The job's trace continues from the dispatch's headers (set by the jobs outbox relay).
      const parent = message.headers ? traceCarrierFrom((name) => message.headers?.get(name)) : null;
      const settlement = parent
        ? await inSpan(
            `${message.subject} process`,
            {
              kind: SpanKind.CONSUMER,
              parent,
              attributes: {
                'messaging.system': 'nats',
                'messaging.operation.type': 'process',
                'messaging.destination.name': message.subject,
                'messaging.message.redelivery_count': message.info.deliveryCount - 1,
                'atelier.job.id': dispatch.jobId,
              },
            },
            () => this.options.handle(dispatch, this.drainController.signal),
          )
        : await this.options.handle(dispatch, this.drainController.signal);
      if (settlement.kind === 'ack') message.ack();
      else if (settlement.kind === 'term') message.term();
      else if (settlement.kind === 'nak') message.nak(settlement.delayMs);
      else message.nak(backoffDelayMs(message.info.deliveryCount, RETRY_LATER_BACKOFF));
    } catch (error) {
      logger.error({ err: error }, 'job handling failed unexpectedly; the message comes back');
      message.nak(NAK_DELAY_MS);
    } finally {
      this.working.delete(message);
      metrics.inFlight.dec({ queue });
    }
  }
}
