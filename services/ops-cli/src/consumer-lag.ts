import { AppError, ErrorCode, isAppError } from '@atelier/errors';
import {
  JOB_QUEUES,
  connectNats,
  jetstreamManager,
  jobsTopology,
  type JetStreamManager,
  type JobQueueName,
  type JobsTopology,
  type NatsConnection,
  type NatsCredentials,
} from '@atelier/nats';
import { withDeadline } from './with-deadline.js';

/** How far behind the workers are on one dispatch queue, as its durable consumer reports it. */
export type ConsumerLag = {
  readonly queue: JobQueueName;
  readonly stream: string;
  readonly consumer: string;
} & (
  | {
      readonly found: true;
      /** Dispatch messages not yet delivered to any worker (num_pending). */
      readonly pending: number;
      /** Delivered to a worker and not yet acknowledged: jobs in hand (num_ack_pending). */
      readonly ackPending: number;
      readonly redelivered: number;
      /** Pull requests waiting for messages: idle worker capacity. */
      readonly waiting: number;
    }
  | {
      readonly found: false;
      /** The stream itself is missing (jobs never started with this prefix) or only the consumer (no worker did). */
      readonly missing: 'stream' | 'consumer';
    }
);

/** A NATS URL list fit to print: credentials in it (`user:pass@`, `token@`) are masked. */
export function redactNatsUrl(servers: string): string {
  return servers
    .split(',')
    .map((server) => server.trim().replace(/^((?:[a-z]+:\/\/)?)[^@/]*@/i, '$1***@'))
    .join(',');
}

async function lagOf(jsm: JetStreamManager, topology: JobsTopology, queue: JobQueueName): Promise<ConsumerLag> {
  // The names come from the same topology the worker declares its consumers with.
  const stream = topology.jobsStream;
  const consumer = topology.consumerName(queue);
  try {
    const info = await jsm.consumers.info(stream, consumer);
    return {
      queue,
      stream,
      consumer,
      found: true,
      pending: info.num_pending,
      ackPending: info.num_ack_pending,
      redelivered: info.num_redelivered,
      waiting: info.num_waiting,
    };
  } catch (error) {
    const name = error instanceof Error ? error.name : '';
    if (name === 'StreamNotFoundError') return { queue, stream, consumer, found: false, missing: 'stream' };
    if (name === 'ConsumerNotFoundError') return { queue, stream, consumer, found: false, missing: 'consumer' };
    throw error;
  }
}

/**
 * Reads the workers' durable consumers on the dispatch stream. One short-lived connection, no
 * reconnection beyond the deadline: an operator wants an answer, not a wait.
 */
export async function readConsumerLag(options: {
  natsUrl: string;
  credentials?: NatsCredentials;
  streamPrefix: string;
  timeoutMs: number;
}): Promise<ConsumerLag[]> {
  const topology = jobsTopology(options.streamPrefix);
  const where = redactNatsUrl(options.natsUrl);
  const connecting = connectNats({ servers: options.natsUrl, name: 'atelier-ops', credentials: options.credentials });
  let nc: NatsConnection;
  try {
    nc = await withDeadline(
      connecting,
      options.timeoutMs,
      () =>
        new AppError(ErrorCode.DEADLINE_EXCEEDED, `NATS at ${where} (NATS_URL) did not answer within ${options.timeoutMs} ms`, {
          reason: 'NATS_UNREACHABLE',
        }),
    );
  } catch (error) {
    // A connection that completes after the deadline must not keep the process alive.
    connecting.then(
      (late) => late.close(),
      () => undefined,
    );
    if (isAppError(error)) throw error;
    throw new AppError(
      ErrorCode.UNAVAILABLE,
      `cannot reach NATS at ${where} (NATS_URL): ${error instanceof Error ? error.message : String(error)}. ` +
        'In a cluster, port-forward NATS first (e.g. `kubectl port-forward svc/<nats service> 4222`)',
      { reason: 'NATS_UNREACHABLE', cause: error },
    );
  }
  try {
    const jsm = await jetstreamManager(nc, { timeout: options.timeoutMs });
    return await Promise.all(JOB_QUEUES.map((queue) => lagOf(jsm, topology, queue)));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new AppError(
      error instanceof Error && error.name === 'TimeoutError' ? ErrorCode.DEADLINE_EXCEEDED : ErrorCode.UNAVAILABLE,
      `cannot read the JetStream consumers at ${where}: ${message}`,
      { reason: 'JETSTREAM_UNAVAILABLE', cause: error },
    );
  } finally {
    await nc.close();
  }
}
