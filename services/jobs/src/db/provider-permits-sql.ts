import { inTransaction, type SqlPool } from '@atelier/db';
import { refill, takePermits } from '../domain/provider-gates.js';

/** With no rate cap, a worker asks again after this long (a cap set meanwhile binds within it). */
export const UNMETERED_FOR_MS = 1_000;
/** A 429 without a Retry-After pauses the provider this long. */
export const DEFAULT_THROTTLE_MS = 1_000;
/** The longest pause a vendor's Retry-After can impose. */
export const MAX_THROTTLE_MS = 300_000;

export interface PermitGrant {
  granted: number;
  retryAfterMs: number;
  pausedUntil: Date | null;
  unmeteredForMs: number;
}

/**
 * Takes up to `wanted` permits of a provider's shared request-rate bucket (jobs.provider_gate_state,
 * under its row lock, so every pod draws from one bucket). None while the vendor throttles the
 * provider; all of them, with no bucket, when the provider has no rate cap.
 */
export async function acquirePermits(pool: SqlPool, providerCode: string, wanted: number): Promise<PermitGrant> {
  const { rows } = await pool.query<{ rate: number | null; burst: number | null; paused_until: Date | null }>({
    name: 'jobs.gates.permit_limits',
    text: `SELECT (SELECT l.max_requests_per_second FROM jobs.provider_limits l WHERE l.provider_code = $1 AND l.provider_model = '') AS rate,
                  (SELECT coalesce(l.burst, l.max_requests_per_second) FROM jobs.provider_limits l
                    WHERE l.provider_code = $1 AND l.provider_model = '') AS burst,
                  (SELECT s.paused_until FROM jobs.provider_gate_state s WHERE s.provider_code = $1 AND s.paused_until > now()) AS paused_until`,
    values: [providerCode],
  });
  const { rate, burst, paused_until: pausedUntil } = rows[0]!;
  if (pausedUntil) return { granted: 0, retryAfterMs: Math.max(10, pausedUntil.getTime() - Date.now()), pausedUntil, unmeteredForMs: 0 };
  if (rate === null || burst === null) return { granted: wanted, retryAfterMs: 0, pausedUntil: null, unmeteredForMs: UNMETERED_FOR_MS };
  return inTransaction(pool, async (client) => {
    // A new bucket starts full.
    await client.query({
      name: 'jobs.gates.bucket_ensure',
      text: `INSERT INTO jobs.provider_gate_state (provider_code, tokens) VALUES ($1, $2) ON CONFLICT (provider_code) DO NOTHING`,
      values: [providerCode, burst],
    });
    const bucket = await client.query<{ tokens: number; elapsed_ms: number; paused_until: Date | null }>({
      name: 'jobs.gates.bucket_read',
      text: `SELECT tokens, extract(epoch FROM clock_timestamp() - refilled_at) * 1000 AS elapsed_ms,
                    CASE WHEN paused_until > now() THEN paused_until END AS paused_until
               FROM jobs.provider_gate_state WHERE provider_code = $1 FOR UPDATE`,
      values: [providerCode],
    });
    const state = bucket.rows[0]!;
    if (state.paused_until) {
      return {
        granted: 0,
        retryAfterMs: Math.max(10, state.paused_until.getTime() - Date.now()),
        pausedUntil: state.paused_until,
        unmeteredForMs: 0,
      };
    }
    const available = refill(state.tokens, state.elapsed_ms, rate, burst);
    const taken = takePermits(available, wanted, rate);
    await client.query({
      name: 'jobs.gates.bucket_write',
      text: `UPDATE jobs.provider_gate_state SET tokens = $2, refilled_at = clock_timestamp() WHERE provider_code = $1`,
      values: [providerCode, taken.left],
    });
    return { granted: taken.granted, retryAfterMs: taken.retryAfterMs, pausedUntil: null, unmeteredForMs: 0 };
  });
}

/**
 * The vendor said 429 with this Retry-After: the provider is paused until then for every pod (no
 * claim, no permit). A later report never shortens a pause already set.
 */
export async function reportThrottle(pool: SqlPool, providerCode: string, retryAfterMs: number): Promise<Date> {
  const pauseMs = Math.min(MAX_THROTTLE_MS, retryAfterMs > 0 ? retryAfterMs : DEFAULT_THROTTLE_MS);
  const { rows } = await pool.query<{ paused_until: Date }>({
    name: 'jobs.gates.report_throttle',
    text: `INSERT INTO jobs.provider_gate_state AS s (provider_code, paused_until, last_retry_after_ms, throttled_at)
           VALUES ($1, now() + $2::int * interval '1 millisecond', $2, now())
           ON CONFLICT (provider_code) DO UPDATE
             SET paused_until = greatest(s.paused_until, excluded.paused_until),
                 last_retry_after_ms = excluded.last_retry_after_ms, throttled_at = excluded.throttled_at
           RETURNING paused_until`,
    values: [providerCode, pauseMs],
  });
  return rows[0]!.paused_until;
}
