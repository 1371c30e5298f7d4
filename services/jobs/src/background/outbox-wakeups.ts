import { randomBytes } from 'node:crypto';
import { coalescedNotifier, type NotificationListener, type SqlPool } from '@atelier/db';
import type { Logger } from '@atelier/logging';

export const OUTBOX_CHANNEL = 'jobs_outbox';

/**
 * Wake-ups for the outbox relays of every replica. After a commit that wrote outbox rows, the
 * writer wakes its own relay directly and asks for a NOTIFY (coalesced) so the others wake too;
 * the replica's NotificationListener turns the others' notifications into wake-ups. Its own come
 * back too and are ignored (the payload names the sender): its relay was woken already, and an
 * extra cycle would only find nothing to claim.
 */
export class OutboxWakeups {
  private readonly origin = randomBytes(6).toString('hex');
  private readonly notify;

  constructor(
    private readonly options: {
      pool: SqlPool;
      listener: NotificationListener;
      logger: Logger;
      onWake: () => void;
      minIntervalMs?: number;
    },
  ) {
    options.listener.on(OUTBOX_CHANNEL, (payload) => {
      if (payload !== this.origin) options.onWake();
    });
    this.notify = coalescedNotifier(
      async () => {
        await options.pool.query({ name: 'jobs.notify_outbox', text: 'SELECT pg_notify($1, $2)', values: [OUTBOX_CHANNEL, this.origin] });
      },
      {
        minIntervalMs: options.minIntervalMs ?? 50,
        onError: (error) => options.logger.debug({ err: error }, 'outbox NOTIFY failed; relays still poll'),
      },
    );
  }

  /** Call after a commit that wrote outbox rows. */
  signal(): void {
    this.options.onWake();
    this.notify.request();
  }

  stop(): void {
    this.notify.stop();
  }
}
