import { createHash } from 'node:crypto';
import type { Reservation } from '@atelier/nats';

/** Who a limit counts: an authenticated subject, or a client address for calls without one. */
export type LimitKind = 'user' | 'address';

export interface RateLimitSettings {
  windowMs: number;
  /** Requests per window per authenticated subject. */
  userMax: number;
  /** Requests per window per client address, for requests without a valid token. */
  addressMax: number;
  /** The most a replica reserves from the shared counter at once. */
  batchMax: number;
}

/** The shared counters (WindowCounters on JetStream KV); the limiter only needs these two calls. */
export interface SharedCounters {
  reserve(key: string, want: (remaining: number) => number, limit: number): Promise<Reservation>;
  forgetBefore(window: number): void;
}

export type Verdict = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export interface RateLimiterOptions {
  settings: RateLimitSettings;
  /** The shared counters when the store is reachable now, else undefined (the limiter fails open). */
  counters(): SharedCounters | undefined;
  /** Told when a request was let through because the store could not be asked. */
  onFailOpen(reason: 'store_down' | 'store_error', error?: unknown): void;
  now?: () => number;
}

/** Local state of one key in the current window. */
interface Entry {
  /** Units reserved in the shared counter and not used yet: requests this replica may admit. */
  tokens: number;
  /** The shared counter reached the limit: refuse until the window ends. */
  full: boolean;
  /** The key's counter in the store: `<kind>.<hashed id>.<window>`. */
  storeKey: string;
  pending?: Promise<void>;
}

/** Keys tracked per window; past it the oldest is dropped (with its unused units: stricter, never looser). */
const MAX_ENTRIES = 100_000;

/**
 * A fixed-window rate limit shared by every gateway replica with little cost per request. Each
 * replica reserves units from the shared counter of a key in batches (CAS, so the grants of all
 * replicas together never pass the limit) and admits requests from its local units: most requests
 * cost a map lookup, one in a batch a KV round trip. Batches shrink as the window fills (a tenth of
 * what is left, at most batchMax, at least 1), so near the limit every request asks the store and
 * the limit is exact. The tolerance is the other way round: units one replica reserved and did
 * not use are not available to another, so a caller may be refused after slightly fewer than the
 * limit (at most one batch per other replica). Concurrent requests for a key share one refill.
 * When the store is down or fails, requests are let through (told to onFailOpen): the rate
 * limit must not take the API down with NATS.
 */
export class RateLimiter {
  private readonly entries = new Map<string, Entry>();
  private window = -1;
  private readonly now: () => number;

  constructor(private readonly options: RateLimiterOptions) {
    this.now = options.now ?? Date.now;
  }

  async check(kind: LimitKind, id: string): Promise<Verdict> {
    const { windowMs } = this.options.settings;
    const now = this.now();
    const window = Math.floor(now / windowMs);
    if (window !== this.window) {
      this.entries.clear();
      this.options.counters()?.forgetBefore(window);
      this.window = window;
    }
    const local = `${kind}:${id}`;
    let entry = this.entries.get(local);
    if (!entry) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
      // Ids are hashed: subjects (maybe e-mails) and addresses never reach NATS in clear. Once
      // per key and window, not per request: most requests never reach the store.
      entry = { tokens: 0, full: false, storeKey: `${kind}.${createHash('sha256').update(id).digest('base64url').slice(0, 22)}.${window}` };
      this.entries.set(local, entry);
    }
    const limit = kind === 'user' ? this.options.settings.userMax : this.options.settings.addressMax;
    // Ends: every refill grants at least one unit or finds the window full, so a request that
    // keeps losing the units to concurrent ones waits for at most `limit` refills.
    for (;;) {
      if (entry.tokens > 0) {
        entry.tokens -= 1;
        return { allowed: true };
      }
      if (entry.full) return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(((window + 1) * windowMs - now) / 1000)) };
      const counters = this.options.counters();
      if (!counters) {
        this.options.onFailOpen('store_down');
        return { allowed: true };
      }
      entry.pending ??= this.refill(entry, counters, entry.storeKey, limit).finally(() => {
        entry.pending = undefined;
      });
      try {
        await entry.pending;
      } catch (error) {
        this.options.onFailOpen('store_error', error);
        return { allowed: true };
      }
    }
  }

  private async refill(entry: Entry, counters: SharedCounters, key: string, limit: number): Promise<void> {
    const { batchMax } = this.options.settings;
    const reservation = await counters.reserve(key, (remaining) => Math.min(batchMax, Math.floor(remaining / 10)), limit);
    if (reservation.granted === 0) entry.full = true;
    else entry.tokens += reservation.granted;
  }
}
