import type { JetStreamClient, JsMsg } from '@nats-io/jetstream';

/**
 * How long a message whose handling failed (its handler threw: a peer or the database away) waits
 * before JetStream delivers it again: the nak delay of every durable consumer's failure path. Long
 * enough that a brief outage is over, short enough that nobody notices the wait.
 */
export const NAK_DELAY_MS = 5_000;

/** What JetStream tells a pull whose consumer or stream disappeared. */
const MISSING_RESOURCE = new Set(['consumer_deleted', 'consumer_not_found', 'stream_not_found']);

export interface DurablePullOptions {
  js: JetStreamClient;
  stream: string;
  consumer: string;
  /** Messages pulled ahead (the consumer's share of in-flight work). */
  maxMessages: number;
  /**
   * How long one pull request waits at the server for messages (nats.js's default, 30 s, without
   * it). A process that stops (SIGSTOP, a partition) is still handed messages into the requests
   * it sent before, until they expire: a short one keeps new messages for live consumers.
   */
  expiresMs?: number;
  /** Declares the stream and the consumer (again); must be idempotent. */
  declare: () => Promise<void>;
  /** Called for each message, one after the other; it may return before the work is done. */
  handle: (message: JsMsg) => Promise<void>;
  logger: { warn(fields: object, message: string): void };
}

export interface DurablePull {
  /** Stops pulling; resolves once the last handle() call has returned. */
  stop(): Promise<void>;
  /**
   * Ends the current pull and opens a new one (after the usual pause), without declaring: for a
   * pull whose consumer was declared again on another pull's word — when the stream goes, every
   * consumer of it goes, but JetStream may tell only the pull that was waiting at that moment.
   */
  restart(): void;
}

/**
 * A pull on a durable consumer that outlives its consumer: nats.js ends a pull whose consumer was
 * deleted and does not follow one declared again under the same name, so when JetStream reports
 * the consumer or its stream gone, the pull is ended, both are declared again and a new pull
 * opens. The first pull opens here (its failure is the caller's: at start-up a service that
 * cannot consume must not run); later reopenings retry until they work or stop() is called.
 */
export async function startDurablePull(options: DurablePullOptions): Promise<DurablePull> {
  let stopping = false;
  let declareOnReopen = true;
  let current: Awaited<ReturnType<typeof open>> | undefined;

  async function open() {
    const consumer = await options.js.consumers.get(options.stream, options.consumer);
    const messages = await consumer.consume({
      max_messages: options.maxMessages,
      ...(options.expiresMs === undefined ? {} : { expires: options.expiresMs }),
    });
    current = messages;
    void (async () => {
      for await (const status of messages.status()) {
        if (MISSING_RESOURCE.has(status.type)) {
          options.logger.warn({ consumer: options.consumer, reason: status.type }, 'the consumer is gone: reopening');
          messages.stop();
          return;
        }
      }
    })();
    return messages;
  }

  async function reopen() {
    for (let attempt = 1; !stopping; attempt += 1) {
      // A pause first: NATS removes a deleted file-backed stream from disk in the background, and
      // one declared again under its name at once can come up unable to serve its first messages.
      const until = Date.now() + Math.min(5_000, 1_000 * attempt);
      while (!stopping && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 100));
      if (stopping) return undefined;
      try {
        if (declareOnReopen) await options.declare();
        declareOnReopen = true;
        if (stopping) return undefined;
        return await open();
      } catch (error) {
        options.logger.warn({ err: error, consumer: options.consumer, attempt }, 'reopening the consumer failed; retrying');
      }
    }
    return undefined;
  }

  let messages: Awaited<ReturnType<typeof open>> | undefined = await open();
  const loop = (async () => {
    while (messages) {
      for await (const message of messages) await options.handle(message);
      if (stopping) return;
      messages = await reopen();
    }
  })();

  return {
    async stop() {
      stopping = true;
      current?.stop();
      await loop;
    },
    restart() {
      if (stopping) return;
      declareOnReopen = false;
      current?.stop();
    },
  };
}
