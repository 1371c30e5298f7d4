import { setTimeout as sleep } from 'node:timers/promises';
import type { Queryable } from '@atelier/db';
import { backoffDelayMs, startPeriodicTask, type PeriodicTask } from '@atelier/lifecycle';
import { nextOutboxDueAt, releaseStaleOutboxLocks } from './outbox-sql.js';
import { OUTAGE_BACKOFF } from './publish-failure.js';

/** What a relay logs through. */
export interface RelayLogger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export interface RelayCyclesOptions {
  /** Where the next due row is read (`<schema>.outbox`). */
  pool: Queryable;
  schema: string;
  /** One claim → publish → settle cycle: how many rows it claimed, or 'unanswered' when the broker is away. */
  cycle: () => Promise<number | 'unanswered'>;
  /** A cycle that claimed this many rows is followed by the next at once: more may be due. */
  batchSize: number;
  /** Longest sleep without a wake-up (the poll fallback when a wake-up is missed). */
  pollIntervalMs: number;
  logger: RelayLogger;
  /** Fields every line of the loop carries (e.g. the schema). */
  logFields?: object;
  /** Unanswered cycles in a row that go unlogged: a relay starts a moment before its broker link. */
  quietUnansweredCycles?: number;
  /** A claimed row not settled within this goes back to pending (its relay died or hung): checked every half of it. */
  lockTimeoutMs: number;
  /** The housekeeping task's name, in its logs. */
  housekeepingName: string;
  /** More housekeeping, after the locks (pruning published rows, where the relay does). */
  moreHousekeeping?: () => Promise<void>;
}

/**
 * The loop of an outbox relay (jobs' and libs/outbox's): runs cycles back to back while rows keep
 * coming, then sleeps until woken (a local commit, a NOTIFY), until the next delayed row falls due,
 * or at the latest the poll interval. While the broker is away it pauses (backoff capped at 5 s),
 * deaf to wake-ups, which would only retry at once, and carries on when the broker answers again.
 * Beside the loop, its housekeeping gives the rows of a relay that died holding them back to pending.
 */
export class RelayCycles {
  private readonly quietCycles: number;
  private unanswered = 0;
  private wakeUp: (() => void) | undefined;
  private woken = false;
  private stopped = true;
  private loop: Promise<void> | undefined;
  private housekeeping: PeriodicTask | undefined;
  private stopping = new AbortController();

  constructor(private readonly options: RelayCyclesOptions) {
    this.quietCycles = options.quietUnansweredCycles ?? 0;
  }

  get running(): boolean {
    return !this.stopped;
  }

  /** Cycles in a row in which the broker did not answer (0: it answers). */
  get unansweredCycles(): number {
    return this.unanswered;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.stopping = new AbortController();
    this.loop = this.run();
    this.housekeeping = startPeriodicTask({
      name: this.options.housekeepingName,
      intervalMs: Math.max(1_000, this.options.lockTimeoutMs / 2),
      logger: this.options.logger,
      run: () => this.keepHouse(),
    });
  }

  /** Asks for a cycle now. Cheap and coalescing. */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Ends the loop after the cycle in flight, and the housekeeping. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    this.wakeUp?.();
    await Promise.all([this.loop, this.housekeeping?.stop()]);
  }

  private async keepHouse(): Promise<void> {
    const { pool, schema, logger, logFields = {} } = this.options;
    const released = await releaseStaleOutboxLocks(pool, schema, this.options.lockTimeoutMs);
    if (released > 0) {
      logger.warn({ ...logFields, released }, 'released outbox rows whose relay lock expired');
      this.wake();
    }
    await this.options.moreHousekeeping?.();
  }

  private async run(): Promise<void> {
    const { logger, logFields = {} } = this.options;
    while (!this.stopped) {
      this.woken = false;
      let claimed: number | 'unanswered' = 0;
      try {
        claimed = await this.options.cycle();
      } catch (error) {
        logger.warn({ ...logFields, err: error }, 'outbox relay cycle failed');
      }
      if (this.stopped) break;
      if (claimed === 'unanswered') {
        this.unanswered += 1;
        if (this.unanswered === this.quietCycles + 1) logger.warn(logFields, 'NATS does not answer: the outbox waits for it');
        await sleep(backoffDelayMs(this.unanswered, OUTAGE_BACKOFF), undefined, { signal: this.stopping.signal }).catch(() => {});
        continue;
      }
      if (this.unanswered > this.quietCycles)
        logger.info({ ...logFields, cycles: this.unanswered }, 'NATS answers again: the outbox carries on');
      this.unanswered = 0;
      if (claimed === this.options.batchSize || this.woken) continue;
      await this.sleep(await this.untilNextDue());
    }
  }

  private async untilNextDue(): Promise<number> {
    const { pollIntervalMs } = this.options;
    try {
      const due = await nextOutboxDueAt(this.options.pool, this.options.schema);
      if (!due) return pollIntervalMs;
      return Math.min(pollIntervalMs, Math.max(0, due.getTime() - Date.now()));
    } catch {
      return pollIntervalMs;
    }
  }

  /** Sleeps until woken, stopped or ms passed. */
  private sleep(ms: number): Promise<void> {
    // stop() may come while the next due time is being read, before there is a wake-up to call.
    if (this.stopped || this.woken || ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = () => {
        this.wakeUp = undefined;
        done();
      };
    });
  }
}
