import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MobileApi, startTestPlatform, waitUntil, type TestPlatform } from '@atelier/testing';
import { testTokenKey } from './test-support/gateway-harness.js';

// Reconciliation with the vendor end to end: every service a real process, one worker
// reconciling every second, jobs settling windows 2 s behind now. A user's journey leaves nothing
// to report; a prediction made at the simulator with the platform key behind the system's back is
// reported by the first run whose window covers it; one made with another account's key is not
// ours and is not listed to us. The waits are generous: a loaded machine slows every process.
const TEST_TIMEOUT_MS = 120_000;
const PLATFORM_KEY = 'platform-key-e2e';
const OTHER_ACCOUNT_KEY = 'someone-elses-key';
let platform: TestPlatform;
let key: Awaited<ReturnType<typeof testTokenKey>>;
let operator: MobileApi;
let db: pg.Client;

interface Finding {
  id: string;
  provider: string;
  kind: string;
  vendorId: string;
  jobId: string | null;
  runId: string;
}
interface Findings {
  items: Finding[];
  nextCursor: string | null;
  openTotal: number;
  coverage: { provider: string; lastFinishedAt: string; coveredUntil: string }[];
}

beforeAll(async () => {
  key = await testTokenKey();
  platform = await startTestPlatform({
    workers: 1,
    providerEnv: { PROVIDER_SIM_API_KEYS: `${PLATFORM_KEY},${OTHER_ACCOUNT_KEY}`, PROVIDER_SIM_LATENCY_MS: '300' },
    workerEnv: { PROVIDER_API_KEY: PLATFORM_KEY, RECONCILE_INTERVAL_MS: '1000' },
    jobsEnv: { RECONCILIATION_SETTLE_MS: '2000' },
    gateway: key.gatewayEnv,
  });
  operator = new MobileApi(platform.gatewayUrl!, await key.sign('ops', { roles: ['admin'] }));
  db = new pg.Client({ connectionString: platform.database.url });
  await db.connect();
}, 180_000);

afterAll(async () => {
  await db?.end();
  await platform?.stop();
});

const findings = async () => {
  const answer = await operator.call<Findings>('GET', '/admin-api/reconciliation/findings?limit=100');
  expect(answer.status).toBe(200);
  return answer.body;
};

/** Waits until reconciliation has covered predictions created up to `instant`. */
const coveredPast = (instant: Date) =>
  waitUntil(
    async () => {
      const coverage = (await findings()).coverage.find((row) => row.provider === 'sim');
      return coverage !== undefined && new Date(coverage.coveredUntil) > instant;
    },
    { timeoutMs: 45_000, what: `reconciliation to cover ${instant.toISOString()}` },
  );

/** POST /v1/predictions at the simulator itself, with a key, as nothing of Atelier would. */
async function predictBehindTheBack(apiKey: string, idempotencyKey?: string): Promise<{ id: string; created_at: string }> {
  const response = await fetch(`${platform.providerUrl}/v1/predictions`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${apiKey}`,
      'content-type': 'application/json',
      ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
    },
    body: JSON.stringify({ model: 'sim-stylize', input: { image_url: 'http://127.0.0.1:9/nothing.png', style: 'comic' } }),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as { id: string; created_at: string };
}

describe('reconciliation with the vendor - end to end', () => {
  it(
    "a user's journey leaves no finding once reconciliation has covered it",
    async () => {
      const user = operator.as(await key.sign(`reconcile-user-${process.pid}`));
      const created = await user.createJob(await user.stylizeBody(await user.uploadPhoto(), 'my dog as a comic'), 'journey-1');
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const job = await user.waitTerminal(created.body.job.id, 45_000);
      expect(job.status).toBe('succeeded');
      const { rows } = await db.query<{ provider_request_id: string }>(
        `SELECT provider_request_id FROM jobs.generation_jobs WHERE id = $1`,
        [job.id],
      );
      expect(rows[0]?.provider_request_id).toMatch(/^pred_/);

      await coveredPast(new Date());
      const after = await findings();
      expect(after.items).toEqual([]);
      expect(after.openTotal).toBe(0);
      const { rows: seen } = await db.query<{ job_id: string | null }>(
        `SELECT job_id FROM jobs.reconciliation_vendor_predictions WHERE vendor_id = $1`,
        [rows[0]!.provider_request_id],
      );
      expect(seen).toEqual([{ job_id: job.id }]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "reports a prediction made behind the system's back within the run that covers it, and not another account's",
    async () => {
      const secret = await predictBehindTheBack(PLATFORM_KEY);
      const otherAccounts = await predictBehindTheBack(OTHER_ACCOUNT_KEY, 'their-own-job');
      const createdAt = new Date(secret.created_at);

      await waitUntil(async () => (await findings()).items.length > 0, { timeoutMs: 45_000, what: 'a finding' });
      const { items, openTotal } = await findings();
      expect(items).toEqual([
        expect.objectContaining({ provider: 'sim', kind: 'prediction_without_job', vendorId: secret.id, jobId: null }),
      ]);
      expect(openTotal).toBe(1);
      expect(items.map((finding) => finding.vendorId)).not.toContain(otherAccounts.id);
      // Found by the first run whose window covers the prediction: none before it covered that instant.
      // The vendor stamps and is asked in milliseconds: a window ending 0.4 ms after the prediction's
      // millisecond asks for predictions made before that millisecond, and the next run lists it.
      const { rows: runs } = await db.query<{ id: string; window_start: Date; window_end: Date }>(
        `SELECT id, window_start, window_end FROM jobs.reconciliation_runs
          WHERE status = 'finished' AND date_trunc('milliseconds', window_end) > $1 ORDER BY window_end`,
        [createdAt],
      );
      expect(runs[0]!.id).toBe(items[0]!.runId);
      expect(runs[0]!.window_start.getTime()).toBeLessThanOrEqual(createdAt.getTime());

      // Runs go on: the finding stays one; an operator acknowledges it.
      await coveredPast(new Date());
      expect((await findings()).items).toHaveLength(1);
      const acknowledged = await operator.call<{ finding: { acknowledgedBy: string } }>(
        'POST',
        `/admin-api/reconciliation/findings/${items[0]!.id}/acknowledge`,
      );
      expect(acknowledged.status).toBe(200);
      expect(acknowledged.body.finding.acknowledgedBy).toBe('ops');
      expect((await findings()).openTotal).toBe(0);

      const metrics = await (await fetch(`http://127.0.0.1:${platform.jobs.metricsPort}/metrics`)).text();
      expect(metrics).toMatch(/atelier_reconciliation_findings_total\{[^}]*kind="prediction_without_job"[^}]*\} 1/);
      expect(metrics).toMatch(/atelier_reconciliation_last_success_age_seconds\{[^}]*provider="sim"[^}]*\} [0-9.]+/);
    },
    TEST_TIMEOUT_MS,
  );
});
