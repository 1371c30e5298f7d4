import type { Queryable } from '@atelier/db';
import { startDeadlinePassedSql } from '../domain/start-deadline.js';
import type { ProviderGateState } from '../domain/provider-gates.js';

/**
 * Today's (UTC) spend counted against the budget row aliased `b`: billable platform-key rows of
 * the ledger in the budget's currency, of its model or (model '') of every model. The ledger's
 * provider_calls_billed_by_time index serves it.
 */
export function spentTodaySql(b: string): string {
  return `(SELECT coalesce(sum(c.cost_micros), 0)::bigint FROM jobs.provider_calls c
            WHERE c.billable AND c.credential_mode = 'platform_key'
              AND c.called_at >= date_trunc('day', now(), 'UTC')
              AND c.provider_code = ${b}.provider_code AND (${b}.provider_model = '' OR c.provider_model = ${b}.provider_model)
              AND c.currency = ${b}.currency)`;
}

/**
 * Running jobs counted against the limit row aliased `l`: what its max_concurrent caps. Only jobs
 * on our own key: a user's key is the user's vendor account, whose predictions ours do not share.
 */
export function runningSql(l: string): string {
  return `(SELECT count(*)::int FROM jobs.generation_jobs j
            WHERE j.status = 'running' AND j.credential_mode = 'platform_key' AND j.provider_code_snapshot = ${l}.provider_code
              AND (${l}.provider_model = '' OR j.provider_model_snapshot = ${l}.provider_model))`;
}

/** A requested job a gate may hold back: claimable now, of a provider with a budget, a cap or a throttle. */
export interface GatedJobRow {
  id: string;
  provider_code: string;
  provider_model: string;
  on_platform_key: boolean;
}

/**
 * Whether a gate may hold back the job aliased `j`: its provider has a budget (of every model or
 * of its model), a concurrency cap, or a live vendor throttle. The claim holds such jobs for the
 * gated path (gated-claim.ts); the gate tables are small, so the test costs the claim little.
 */
export function gateMayHoldSql(j: string): string {
  return `(${j}.provider_code_snapshot IS NOT NULL
           AND (EXISTS (SELECT 1 FROM jobs.spend_budgets b
                         WHERE b.provider_code = ${j}.provider_code_snapshot AND b.provider_model IN ('', ${j}.provider_model_snapshot))
                OR EXISTS (SELECT 1 FROM jobs.provider_limits l
                            WHERE l.provider_code = ${j}.provider_code_snapshot AND l.provider_model IN ('', ${j}.provider_model_snapshot)
                              AND l.max_concurrent IS NOT NULL)
                OR EXISTS (SELECT 1 FROM jobs.provider_gate_state s
                            WHERE s.provider_code = ${j}.provider_code_snapshot AND s.paused_until > now())))`;
}

/**
 * Which of these jobs a gate may hold back: those the claim would take now (queued, due, within
 * their attempts and start deadline) whose provider has a budget, a concurrency cap or a live
 * vendor throttle — with what the decision needs of them.
 */
export async function findGatedJobs(db: Queryable, jobIds: readonly string[]): Promise<GatedJobRow[]> {
  const { rows } = await db.query<GatedJobRow>({
    name: 'jobs.gates.find_gated',
    text: `SELECT j.id, j.provider_code_snapshot AS provider_code, j.provider_model_snapshot AS provider_model,
                  j.credential_mode = 'platform_key' AS on_platform_key
             FROM jobs.generation_jobs j
            WHERE j.id = ANY($1::uuid[]) AND j.status = 'queued'
              AND j.next_attempt_at <= now() AND j.attempt_count < j.max_attempts AND NOT ${startDeadlinePassedSql('j')}
              AND ${gateMayHoldSql('j')}`,
    values: [jobIds],
  });
  return rows;
}

/**
 * Serialises the gated claims of these providers until the transaction ends: the running count a
 * cap is checked against cannot change under the claim that checks it (another claim of the
 * provider waits; a claim commits before its lock is released). Taken in a fixed order, so two
 * claims of two providers never wait for each other.
 */
export async function lockProviders(db: Queryable, providers: readonly string[]): Promise<void> {
  await db.query({
    name: 'jobs.gates.lock_providers',
    text: `SELECT count(pg_advisory_xact_lock(hashtext('atelier.jobs.provider_gate'), hashtext(p)))
             FROM (SELECT DISTINCT p FROM unnest($1::text[]) AS u(p) ORDER BY p) AS sorted`,
    values: [providers],
  });
}

/** The state of each provider a claim's decision needs (domain/provider-gates.ts), by provider code. */
export async function readProviderGateStates(db: Queryable, providers: readonly string[]): Promise<Map<string, ProviderGateState>> {
  const { rows } = await db.query<{
    provider_code: string;
    paused_until: Date | null;
    budgets: { model: string; limit: number; spent: number }[];
    caps: { model: string; max: number; running: number }[];
  }>({
    name: 'jobs.gates.read_states',
    text: `SELECT p.provider_code,
                  (SELECT s.paused_until FROM jobs.provider_gate_state s
                    WHERE s.provider_code = p.provider_code AND s.paused_until > now()) AS paused_until,
                  coalesce((SELECT json_agg(json_build_object('model', b.provider_model, 'limit', b.daily_limit_micros,
                                                              'spent', ${spentTodaySql('b')}))
                              FROM jobs.spend_budgets b WHERE b.provider_code = p.provider_code), '[]') AS budgets,
                  coalesce((SELECT json_agg(json_build_object('model', l.provider_model, 'max', l.max_concurrent,
                                                              'running', ${runningSql('l')}))
                              FROM jobs.provider_limits l
                             WHERE l.provider_code = p.provider_code AND l.max_concurrent IS NOT NULL), '[]') AS caps
             FROM (SELECT DISTINCT unnest($1::text[]) AS provider_code) p`,
    values: [providers],
  });
  return new Map(
    rows.map((row) => [
      row.provider_code,
      {
        pausedUntil: row.paused_until,
        budgets: row.budgets.map((b) => ({ model: b.model, limitMicros: Number(b.limit), spentMicros: Number(b.spent) })),
        caps: row.caps.map((c) => ({ model: c.model, maxConcurrent: c.max, running: c.running })),
      },
    ]),
  );
}

/**
 * Whether a platform-key job of this provider model would be held back by a budget now: what a
 * create answers 503 for (its job could only wait). Reads no lock: a create racing a raise of the
 * limit may be refused once more, never let through wrongly for long.
 */
export async function budgetExhausted(db: Queryable, providerCode: string, providerModel: string): Promise<boolean> {
  const { rows } = await db.query<{ exhausted: boolean }>({
    name: 'jobs.gates.budget_exhausted',
    text: `SELECT EXISTS (SELECT 1 FROM jobs.spend_budgets b
                          WHERE b.provider_code = $1 AND b.provider_model IN ('', $2)
                            AND ${spentTodaySql('b')} >= b.daily_limit_micros) AS exhausted`,
    values: [providerCode, providerModel],
  });
  return rows[0]!.exhausted;
}

/**
 * Whether the job aliased `j` is held back for longer than a moment — its provider throttled by
 * the vendor or its budget spent — in SQL. The stale-dispatch sweep leaves such a job alone: its
 * dispatch is not lost, it is being handed back (nak) until the gate opens, and a new dispatch
 * every sweep would only pile messages up. Once the gate opens, a job whose message was lost
 * meanwhile is dispatched again by the next sweep.
 */
export function providerHeldSql(j: string): string {
  return `(EXISTS (SELECT 1 FROM jobs.provider_gate_state s
                    WHERE s.provider_code = ${j}.provider_code_snapshot AND s.paused_until > now())
           OR EXISTS (SELECT 1 FROM jobs.spend_budgets b
                       WHERE b.provider_code = ${j}.provider_code_snapshot AND b.provider_model IN ('', ${j}.provider_model_snapshot)
                         AND ${spentTodaySql('b')} >= b.daily_limit_micros))`;
}
