import { jobsEventsV1 } from '@atelier/contracts';
import { jetstream, jetstreamManager, type JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { NAK_DELAY_MS, startDurablePull, type DurablePull } from './durable-pull.js';
import { ensureEventsConsumer, ensureJobStreams } from './streams.js';
import type { JobsTopology } from './topology.js';

/**
 * What became of an event: `ack`, it is handled; `term`, it must never come back (jobs does not
 * confirm it: a forged or stale event). A handler that throws has it come back NAK_DELAY_MS later.
 */
export type LifecycleOutcome = 'ack' | 'term';

export interface LifecycleConsumerOptions {
  /** What the consumer does, as its log lines say it ("webhook fan-out" → "webhook fan-out failed; …"). */
  purpose: string;
  topology: JobsTopology;
  /** Copies of each stream (NATS_STREAM_REPLICAS): a consumer may start before jobs, so it declares the streams too. */
  streamReplicas: number;
  /** The durable consumers, shared by every replica of the service, each on its filter subject. */
  consumers: readonly { name: string; filterSubject: string }[];
  /** Messages pulled ahead per consumer. */
  maxMessages: number;
  /** Redelivery after this without an ack (a crashed replica's messages go to another). */
  ackWaitMs?: number;
  logger: {
    warn(fields: object, message: string): void;
    error(fields: object, message: string): void;
  };
  /**
   * Handles one decoded event, at least once: it must be idempotent. `message` tells its subject
   * and headers (the outbox's Nats-Msg-Id is the event's id); the consumer acks or naks it.
   */
  handle: (event: jobsEventsV1.JobLifecycleEvent, message: Pick<JsMsg, 'subject' | 'headers'>) => Promise<LifecycleOutcome>;
}

/**
 * A service's durable pull consumers of the jobs lifecycle events: the stream and the consumers
 * declared (again whenever JetStream lost them), each event decoded — one that is not an event is
 * dropped — and handed to `handle`, then acked, terminated or, when handle throws (a peer or the
 * database away), nak'ed to come back NAK_DELAY_MS later. Consumers start at the events published
 * after their creation.
 */
export class LifecycleConsumer {
  private pulls: DurablePull[] = [];

  constructor(private readonly options: LifecycleConsumerOptions) {}

  /** Declares the consumers and starts pulling, on a connected NATS. */
  async start(nats: NatsConnection): Promise<void> {
    const { topology, logger, consumers } = this.options;
    const jsm = await jetstreamManager(nats);
    const declare = async () => {
      await ensureJobStreams(jsm, topology, { replicas: this.options.streamReplicas });
      for (const consumer of consumers) {
        await ensureEventsConsumer(jsm, topology, {
          name: consumer.name,
          filterSubject: consumer.filterSubject,
          ackWaitMs: this.options.ackWaitMs ?? 30_000,
          maxDeliver: -1,
        });
      }
    };
    await declare();
    for (const consumer of consumers) {
      this.pulls.push(
        await startDurablePull({
          js: jetstream(nats),
          stream: topology.eventsStream,
          consumer: consumer.name,
          maxMessages: this.options.maxMessages,
          declare,
          logger,
          handle: (message) => this.handle(message),
        }),
      );
    }
  }

  /** Stops pulling; resolves once the events in hand are handled. */
  async stop(): Promise<void> {
    await Promise.all(this.pulls.map((pull) => pull.stop()));
  }

  private async handle(message: JsMsg): Promise<void> {
    const { logger, purpose } = this.options;
    let event: jobsEventsV1.JobLifecycleEvent;
    try {
      event = jobsEventsV1.JobLifecycleEvent.fromJSON(message.json());
    } catch (error) {
      logger.error({ err: error, subject: message.subject }, 'undecodable lifecycle event: dropping it');
      message.term();
      return;
    }
    try {
      const outcome = await this.options.handle(event, message);
      if (outcome === 'term') message.term();
      else message.ack();
    } catch (error) {
      logger.warn({ err: error, jobId: event.jobId, subject: message.subject }, `${purpose} failed; the event comes back`);
      message.nak(NAK_DELAY_MS);
    }
  }
}
