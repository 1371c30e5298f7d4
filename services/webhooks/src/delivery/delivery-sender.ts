import { inTransaction, type SqlPool } from '@atelier/db';
import { isAppError } from '@atelier/errors';
import type { Logger } from '@atelier/logging';
import { claimDueDeliveries, recordAttempt, type ClaimedDelivery } from '../db/delivery-sql.js';
import type { DeliveryMetrics } from './delivery-metrics.js';
import { retryDelayMs } from '../domain/retry-schedule.js';
import { checkTarget, type ResolveAll } from '../ssrf/target-check.js';
import { sendWebhook } from './send-webhook.js';
import { webhookHeaders } from './webhook-headers.js';

export interface DeliverySenderOptions {
  pool: SqlPool;
  logger: Logger;
  allowedHosts: ReadonlySet<string>;
  retryScheduleMs: readonly number[];
  /** One POST is given up after this. */
  timeoutMs: number;
  /** A claimed delivery is due again after this when its attempt was never recorded (the sender died). */
  leaseMs: number;
  /** How often due deliveries are looked for when nothing wakes the sender. */
  pollIntervalMs: number;
  /** Attempts in flight at once (WEBHOOK_CONCURRENCY). */
  batchSize: number;
  /** DNS for the target check (tests). */
  resolve?: ResolveAll;
  metrics?: DeliveryMetrics;
}

export interface DeliverySender {
  /** Looks for due deliveries now (the fan-out just created some). */
  wake(): void;
  /** Stops claiming; resolves once the attempts in flight are recorded. */
  stop(): Promise<void>;
}

/**
 * Sends due deliveries: claim what free slots allow (claimDueDeliveries: SKIP LOCKED, a lease),
 * POST each to its re-checked target, record every attempt and settle its delivery. An attempt
 * that is never recorded (a crash) costs one lease of delay, and a receiver may then see the same
 * webhook-id twice — at least once, deduped by the receiver, as Standard Webhooks intends.
 */
export function startDeliverySender(options: DeliverySenderOptions): DeliverySender {
  const { pool, logger } = options;
  let stopping = false;
  let wakeUp: (() => void) | undefined;
  let woken = false;

  const sleep = () =>
    new Promise<void>((resolve) => {
      if (woken || stopping) {
        woken = false;
        resolve();
        return;
      }
      const timer = setTimeout(done, options.pollIntervalMs);
      function done() {
        clearTimeout(timer);
        wakeUp = undefined;
        woken = false;
        resolve();
      }
      wakeUp = done;
    });

  /** Ends the current sleep, or the next one before it starts. */
  function nudge(): void {
    woken = true;
    wakeUp?.();
  }

  async function attempt(delivery: ClaimedDelivery): Promise<void> {
    const startedAt = new Date();
    let statusCode = 0;
    let error: string | undefined;
    let durationMs = 0;
    try {
      const target = await checkTarget(new URL(delivery.url), options.allowedHosts, options.resolve);
      const headers = webhookHeaders(delivery.secret, delivery.id, delivery.body, new Date());
      ({ statusCode, error, durationMs } = await sendWebhook({ target, headers, body: delivery.body, timeoutMs: options.timeoutMs }));
    } catch (refusal) {
      // The target check refused the address now: a failed attempt like any other (DNS may change back).
      error = isAppError(refusal) ? refusal.message : String(refusal);
      durationMs = Date.now() - startedAt.getTime();
    }
    const delivered = statusCode >= 200 && statusCode < 300;
    const retryInMs = delivered ? undefined : retryDelayMs(options.retryScheduleMs, delivery.schedule_step);
    await inTransaction(pool, (client) =>
      recordAttempt(client, {
        deliveryId: delivery.id,
        attempt: delivery.attempt_count,
        startedAt,
        durationMs,
        statusCode,
        error: error?.slice(0, 500),
        delivered,
        retryInMs,
      }),
    );
    options.metrics?.observe(delivered ? 'delivered' : retryInMs === undefined ? 'failed' : 'retry', durationMs);
    if (!delivered) {
      logger.info(
        { deliveryId: delivery.id, endpointId: delivery.endpoint_id, attempt: delivery.attempt_count, statusCode, error, retryInMs },
        retryInMs === undefined ? 'webhook delivery failed for good' : 'webhook attempt failed; retrying',
      );
    }
  }

  // Up to batchSize attempts in flight; a free slot is filled at once, so one slow receiver holds
  // only its own slot (at most WEBHOOK_TIMEOUT_MS), never the deliveries of the others.
  const inFlight = new Set<Promise<void>>();
  const loop = (async () => {
    while (!stopping) {
      const free = options.batchSize - inFlight.size;
      let claimed: ClaimedDelivery[] = [];
      if (free > 0) {
        try {
          claimed = await claimDueDeliveries(pool, free, options.leaseMs);
        } catch (error) {
          logger.warn({ err: error }, 'claiming due webhook deliveries failed; trying again');
        }
        for (const delivery of claimed) {
          const running: Promise<void> = attempt(delivery)
            .catch((error: unknown) =>
              logger.warn({ err: error, deliveryId: delivery.id }, 'recording a webhook attempt failed; it is due again after its lease'),
            )
            .finally(() => {
              inFlight.delete(running);
              nudge();
            });
          inFlight.add(running);
        }
      }
      // Nothing more due now, or every slot busy: wait for a wake-up, a finished attempt or the poll.
      if (claimed.length < free || free === 0) await sleep();
    }
    await Promise.all(inFlight);
  })();

  return {
    wake: nudge,
    async stop() {
      stopping = true;
      wakeUp?.();
      await loop;
    },
  };
}
