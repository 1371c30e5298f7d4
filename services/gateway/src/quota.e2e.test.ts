import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MobileApi, startTestPlatform, type TestPlatform } from '@atelier/testing';
import { testTokenKey } from './test-support/gateway-harness.js';

// The generation quota end to end, every service a real process on real Postgres, NATS and an S3
// store, jobs with a small allowance: 2 generations a day, 3 a month. No worker runs, so every
// job stays queued (counted, and in flight under a limit of 20). Jobs of the month's earlier
// days, or of last month, are made by moving a job's creation in the database.
const DAILY = 2;
const MONTHLY = 3;
let platform: TestPlatform;
let key: Awaited<ReturnType<typeof testTokenKey>>;
let operator: MobileApi;
let db: pg.Client;

beforeAll(async () => {
  key = await testTokenKey();
  platform = await startTestPlatform({
    jobsEnv: { QUOTA_DAILY_LIMIT: String(DAILY), QUOTA_MONTHLY_LIMIT: String(MONTHLY), QUOTA_MAX_IN_FLIGHT: '20' },
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

/** A user with a ready photo, and a create of a stylization of it under an Idempotency-Key. */
async function newUser(name: string) {
  const api = operator.as(await key.sign(`${name}-${process.pid}`));
  const body = await api.stylizeBody(await api.uploadPhoto(), 'my dog as a watercolor');
  return {
    create: (idempotencyKey: string, headers: Record<string, string> = {}) =>
      api.call<{ job: { id: string } } & QuotaRefusal>('POST', '/api/v1/creation/jobs', {
        body,
        headers: { 'idempotency-key': idempotencyKey, ...headers },
      }),
    quota: async () => (await api.call<Quota>('GET', '/api/v1/me/quota')).body,
  };
}

type QuotaRefusal = { error: { code: number; name: string; message: string; allowance?: string; resetsAt?: string; requestId: string } };
type Window = { used: number; limit: number; remaining: number; resetsAt: string };
type Quota = {
  daily: Window;
  monthly: Window;
  inFlight: { count: number; limit: number; remaining: number };
  remainingNow: number;
  whatCounts: { daily: string; monthly: string };
};

/** Moves jobs' creation to another instant of the database's clock (`at`: SQL over now()). */
const createdAt = (jobIds: string[], at: string) =>
  db.query(`UPDATE jobs.generation_jobs SET created_at = ${at} WHERE id = ANY($1)`, [jobIds]);
const START_OF_MONTH = `date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'`;

const nextUtcDay = () => {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
};
const nextUtcMonth = () => {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
};
const secondsUntil = (then: Date) => Math.ceil((then.getTime() - Date.now()) / 1000);
const quotaHits = async () =>
  (await operator.call<{ quotaHits: { daily: number; monthly: number; inFlight: number } }>('GET', '/admin-api/overview')).body.quotaHits;

describe('generation quota - daily and monthly allowances through the API', () => {
  it('42900 naming the daily allowance, with its reset and Retry-After to 00:00 UTC; /me/quota shows both windows', async () => {
    const user = await newUser('quota-day');
    const ids = [];
    for (let i = 0; i < DAILY; i += 1) {
      const created = await user.create(`day-${i}`);
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      ids.push(created.body.job.id);
    }
    const quota = await user.quota();
    expect(quota).toMatchObject({
      daily: { used: 2, limit: DAILY, remaining: 0, resetsAt: nextUtcDay().toISOString() },
      monthly: { used: 2, limit: MONTHLY, remaining: 1, resetsAt: nextUtcMonth().toISOString() },
      remainingNow: 0,
    });
    expect(quota.whatCounts.monthly).toBe(quota.whatCounts.daily);

    const refused = await user.create('day-2');
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({
      code: 42900,
      name: 'GENERATION_QUOTA_EXCEEDED',
      message: 'daily limit of 2 generations reached; it resets at 00:00 UTC',
      allowance: 'daily',
      resetsAt: nextUtcDay().toISOString(),
    });
    expect(Math.abs(Number(refused.headers.get('retry-after')) - secondsUntil(nextUtcDay()))).toBeLessThanOrEqual(5);
    expect((await quotaHits()).daily).toBe(1);
  });

  it.skipIf(new Date().getUTCDate() === 1)(
    '42902 naming the monthly allowance while the day has room, with its reset and Retry-After to the 1st (not on the 1st: no earlier day)',
    async () => {
      const user = await newUser('quota-month');
      const earlier = [(await user.create('m-0')).body.job.id, (await user.create('m-1')).body.job.id];
      await createdAt(earlier, START_OF_MONTH);
      expect(await user.quota()).toMatchObject({
        daily: { used: 0, remaining: 2 },
        monthly: { used: 2, remaining: 1 },
        remainingNow: 1,
      });
      expect((await user.create('m-2')).status).toBe(201);
      expect(await user.quota()).toMatchObject({ daily: { used: 1, remaining: 1 }, monthly: { used: 3, remaining: 0 }, remainingNow: 0 });

      const refused = await user.create('m-3');
      expect(refused.status).toBe(429);
      expect(refused.body.error).toMatchObject({
        code: 42902,
        name: 'GENERATION_MONTHLY_QUOTA_EXCEEDED',
        message: 'monthly limit of 3 generations reached; it resets on the 1st of next month at 00:00 UTC',
        allowance: 'monthly',
        resetsAt: nextUtcMonth().toISOString(),
      });
      expect(refused.body.error.requestId).toBe(refused.headers.get('x-request-id'));
      expect(Math.abs(Number(refused.headers.get('retry-after')) - secondsUntil(nextUtcMonth()))).toBeLessThanOrEqual(5);
      const chinese = await user.create('m-4', { 'accept-language': 'zh-CN' });
      expect(chinese.status).toBe(429);
      expect(chinese.body.error).toMatchObject({
        code: 42902,
        message: '本月 3 次生成额度已用完，将于下月 1 日 UTC 时间 00:00 重置',
        allowance: 'monthly',
      });
      // Refused twice, counted once.
      expect((await quotaHits()).monthly).toBe(1);
    },
  );

  it("does not count last month's generations", async () => {
    const user = await newUser('quota-last-month');
    const ids = [(await user.create('l-0')).body.job.id, (await user.create('l-1')).body.job.id];
    expect((await user.create('l-2')).status).toBe(429);
    await createdAt(ids, `${START_OF_MONTH} - interval '1 millisecond'`);
    expect(await user.quota()).toMatchObject({ daily: { used: 0 }, monthly: { used: 0 }, inFlight: { count: 2 }, remainingNow: 2 });
    expect((await user.create('l-2')).status).toBe(201);
  });
});
