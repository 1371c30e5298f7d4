import { jobsEventsV1 } from '@atelier/contracts';
import type { Logger } from '@atelier/logging';
import type { JetStreamClient, JobQueueName, JobsTopology, JsMsg } from '@atelier/nats';
import { inSpan, SpanKind, traceCarrierFrom } from '@atelier/telemetry';
import type { Settlement } from './job-runner.js';
import type { WorkerMetrics } from './worker-metrics.js';

export interface QueueConsumerOptions {
  js: JetStreamClient;
  topology: JobsTopology;
  queue: JobQueueName;
  concurrency: number;
  ackWaitMs: number;
  handle: (dispatch: jobsEventsV1.JobDispatch, drain: AbortSignal) => Promise<Settlement>;
  logger: Logger;
  metrics: WorkerMetrics;
  /**
   * Declares the streams and this worker's consumers again, before a pull is reopened because
   * JetStream said its consumer or stream was gone (deleted by hand, a NATS server that lost its
   * state).
   */
  restoreTopology?: () => Promise<void>;
}

/** What JetStream tells a pull consumer whose consumer or stream disappeared. */
const MISSING_RESOURCE = new Set(['consumer_deleted', 'consumer_not_found', 'stream_not_found']);

type Messages = Awaited<ReturnType<Awaited<ReturnType<JetStreamClient['consumers']['get']>>['consume']>>;

/**
 * Pulls one dispatch queue's durable consumer and runs up to `concurrency` jobs at once. While a
 * job runs its message is kept alive with `working()`, so the ack deadline never lapses mid-job;
 * the message is settled only after the outcome is recorded (ack), or handed back (nak with a
 * delay) or dropped (term, for finished or unknown jobs).
 */
export class QueueConsumer {
  private running = 0;
  private readonly idle: (() => void)[] = [];
  private messages: Messages | undefined;
  private loop: Promise<void> | undefined;
  private draining = false;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly drainController = new AbortController();

  constructor(private readonly options: QueueConsumerOptions) {}

  /** Opens the pull; fails when it cannot (at start-up a worker that cannot consume must not run). */
  async start(): Promise<void> {
    if (this.options.concurrency === 0) return;
    this.loop = this.consume(await this.open());
  }

  private async open(): Promise<Messages> {
    const { js, topology, queue, concurrency } = this.options;
    const consumer = await js.consumers.get(topology.jobsStream, topology.consumerName(queue));
    const messages = await consumer.consume({ max_messages: concurrency });
    this.messages = messages;
    // A pull whose consumer was deleted does not pick up a consumer declared again under the same
    // name: it is ended here, and consume() declares the topology again and opens a new one.
    void (async () => {
      for await (const status of messages.status()) {
        if (MISSING_RESOURCE.has(status.type)) {
          this.options.logger.warn({ queue: this.options.queue, reason: status.type }, 'the dispatch consumer is gone');
          messages.stop();
          return;
        }
      }
    })();
    return messages;
  }

  private async consume(first: Messages): Promise<void> {
    const { concurrency, logger, queue } = this.options;
    let messages: Messages | undefined = first;
    while (messages) {
      for await (const message of messages) {
        if (this.running >= concurrency) await new Promise<void>((resolve) => this.idle.push(resolve));
        this.running += 1;
        const task = this.process(message).finally(() => {
          this.running -= 1;
          this.inFlight.delete(task);
          this.idle.shift()?.();
        });
        this.inFlight.add(task);
      }
      if (this.draining) return;
      // Not a drain: the consumer (or its stream) was deleted under us.
      logger.warn({ queue }, 'declaring the dispatch stream and consumer again and reopening the pull');
      messages = await this.reopen();
    }
  }

  /** Declares the topology again and reopens the pull, retrying until it works or we drain. */
  private async reopen(): Promise<Messages | undefined> {
    for (let attempt = 1; !this.draining; attempt += 1) {
      // A pause first: NATS removes a deleted file-backed stream from disk in the background, and
      // one declared again under its name at once can come up unable to serve its first messages.
      const until = Date.now() + Math.min(5_000, 1_000 * attempt);
      while (!this.draining && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 100));
      if (this.draining) return undefined;
      try {
        await this.options.restoreTopology?.();
        if (this.draining) return undefined;
        return await this.open();
      } catch (error) {
        this.options.logger.warn({ err: error, queue: this.options.queue, attempt }, 'reopening the dispatch consumer failed; retrying');
      }
    }
    return undefined;
  }

  /**
   * Stops pulling, lets running jobs finish for up to timeoutMs, then asks the rest to hand their
   * jobs back (release) and waits for them to settle their messages.
   */
  async drain(timeoutMs: number): Promise<void> {
    this.draining = true;
    this.messages?.stop();
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
    await this.loop;
  }

  private async process(message: JsMsg): Promise<void> {
    const { queue, ackWaitMs, logger, metrics } = this.options;
    metrics.inFlight.inc({ queue });
    const keepAlive = setInterval(() => message.working(), Math.max(500, Math.floor(ackWaitMs / 3)));
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
      else message.nak(settlement.delayMs);
    } catch (error) {
      logger.error({ err: error }, 'job handling failed unexpectedly; the message comes back');
      message.nak(5_000);
    } finally {
      clearInterval(keepAlive);
      metrics.inFlight.dec({ queue });
    }
  }
}
