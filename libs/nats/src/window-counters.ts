import { JetStreamApiError, StorageType, jetstream } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';

/** How many times a reservation re-reads a counter another replica moved before giving up. */
const MAX_CAS_ATTEMPTS = 16;
/** The longest random pause after a lost CAS, so that replicas racing for a key spread out. */
const CONFLICT_JITTER_MS = 5;

/** The name of the rate-limit bucket of a NATS_STREAM_PREFIX (its stream is `KV_<name>`). */
export function windowCountersBucket(prefix: string): string {
  return `${prefix}_RATE_LIMITS`;
}

export interface WindowCountersOptions {
  /** The bucket's name (windowCountersBucket(prefix)). */
  bucket: string;
  /** Keys older than this are dropped by the server: at least two windows. */
  maxAgeMs: number;
  /** Each KV request's timeout: a slow store must not hold requests up for long. */
  timeoutMs: number;
  /** Copies of the bucket in a NATS cluster (NATS_STREAM_REPLICAS); 1 when unset. */
  replicas?: number;
}

/** What a reservation got: `granted` units (0: the window is full) and the count after it. */
export interface Reservation {
  granted: number;
  count: number;
}

/**
 * Counters of fixed windows shared by every replica, in a JetStream key-value bucket (memory
 * storage, history 1). A counter only grows within its window, by compare-and-set on the key's
 * revision, so replicas never lose each other's increments and the sum of grants never passes the
 * limit. Keys carry their window (`<kind>.<id>.<window>`): a new window is a new key, and the
 * bucket's max age removes old ones.
 */
export class WindowCounters {
  /** The last revision and value seen per key: the next CAS tries it before reading again. */
  private readonly seen = new Map<string, { revision: number; count: number }>();
  /** The reservation under way per key: this replica's own reservations of a key run one by one. */
  private readonly inFlight = new Map<string, Promise<unknown>>();

  private constructor(private readonly kv: KV) {}

  /** Creates the bucket when missing (or opens it as it is), on an open connection. */
  static async open(nc: NatsConnection, options: WindowCountersOptions): Promise<WindowCounters> {
    const kvm = new Kvm(jetstream(nc, { timeout: options.timeoutMs }));
    let kv: KV;
    try {
      kv = await kvm.create(options.bucket, {
        history: 1,
        ttl: options.maxAgeMs,
        storage: StorageType.Memory,
        replicas: options.replicas ?? 1,
        timeout: options.timeoutMs,
      });
    } catch (error) {
      // It exists with other limits (a replica with another window): its keys are still good.
      if (!(error instanceof JetStreamApiError)) throw error;
      kv = await kvm.open(options.bucket, { timeout: options.timeoutMs });
    }
    return new WindowCounters(kv);
  }

  /**
   * Adds up to `want` to the key's counter without passing `limit`, and says how much it added.
   * The first try uses the revision this replica last saw, so an uncontended reservation is one
   * round trip; a conflict re-reads the key and tries again.
   */
  reserve(key: string, want: (remaining: number) => number, limit: number): Promise<Reservation> {
    // Queued behind this replica's previous reservation of the key: CAS conflicts then come only
    // from other replicas, not from this one's concurrent requests.
    const previous = this.inFlight.get(key) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => this.reserveNow(key, want, limit));
    this.inFlight.set(key, next);
    void next
      .catch(() => undefined)
      .then(() => {
        if (this.inFlight.get(key) === next) this.inFlight.delete(key);
      });
    return next;
  }

  private async reserveNow(key: string, want: (remaining: number) => number, limit: number): Promise<Reservation> {
    let known = this.seen.get(key);
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt += 1) {
      if (!known || attempt > 0) {
        const entry = await this.kv.get(key);
        known = entry && entry.operation === 'PUT' ? { revision: entry.revision, count: Number(entry.string()) || 0 } : undefined;
      }
      const count = known?.count ?? 0;
      if (count >= limit) return { granted: 0, count };
      const granted = Math.max(1, Math.min(limit - count, want(limit - count)));
      try {
        const revision = known
          ? await this.kv.update(key, String(count + granted), known.revision)
          : await this.kv.create(key, String(count + granted));
        this.seen.set(key, { revision, count: count + granted });
        return { granted, count: count + granted };
      } catch (error) {
        // A wrong last sequence: another replica moved the counter first. Anything else is the store's failure.
        if (!(error instanceof JetStreamApiError)) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.random() * CONFLICT_JITTER_MS));
      }
    }
    throw new Error(`the counter ${key} kept changing under ${MAX_CAS_ATTEMPTS} attempts`);
  }

  /** Forgets what it saw of keys of windows that ended (keys end with their window number). */
  forgetBefore(window: number): void {
    for (const key of this.seen.keys()) if (Number(key.slice(key.lastIndexOf('.') + 1)) < window) this.seen.delete(key);
  }
}
