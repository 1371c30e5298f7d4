import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MobileApi, startTestPlatform, type ApiAnswer, type ApiJob, type TestPlatform } from '@atelier/testing';
import { testTokenKey } from './test-support/gateway-harness.js';

// A generation job tagged with a pet, end to end: the gateway, jobs, catalog, media and
// pet-directory-sim (the app's pet service's stand-in, seeded with this test's pets) as real
// processes on real Postgres and NATS. No worker runs: a created job stays queued.
const run = process.pid;
const USERS = { ana: `ana-pets-${run}`, ben: `ben-pets-${run}`, cai: `cai-pets-${run}` };
const PETS = {
  anasCat: '0a7e0000-0000-4000-8000-00000000e0a1',
  anasDog: '0a7e0000-0000-4000-8000-00000000e0a2',
  anasBird: '0a7e0000-0000-4000-8000-00000000e0a3',
  bensRabbit: '0a7e0000-0000-4000-8000-00000000e0b1',
  caisHorse: '0a7e0000-0000-4000-8000-00000000e0c1',
  unknown: '0a7e0000-0000-4000-8000-00000000e0ff',
};
const SEED = [
  { id: PETS.anasCat, ownerUserId: USERS.ana },
  { id: PETS.anasDog, ownerUserId: USERS.ana },
  { id: PETS.anasBird, ownerUserId: USERS.ana },
  // Ben shared his rabbit with Ana (a family member); Cai shared nothing.
  { id: PETS.bensRabbit, ownerUserId: USERS.ben, sharedWith: [USERS.ana] },
  { id: PETS.caisHorse, ownerUserId: USERS.cai },
];

let platform: TestPlatform;
let ana: MobileApi;
let db: pg.Client;
let stylize: Record<string, unknown>;

beforeAll(async () => {
  const key = await testTokenKey();
  platform = await startTestPlatform({ gateway: key.gatewayEnv, petDirectoryEnv: { PET_DIRECTORY_SEED: JSON.stringify(SEED) } });
  ana = new MobileApi(platform.gatewayUrl!, await key.sign(USERS.ana));
  db = new pg.Client({ connectionString: platform.database.url });
  await db.connect();
  stylize = await ana.stylizeBody(await ana.uploadPhoto(), 'my pet as a watercolour');
}, 180_000);

afterAll(async () => {
  await db?.end();
  await platform?.stop();
});

let keySeq = 0;
const newKey = () => `pet-e2e-${run}-${++keySeq}`;
const withPet = (petId: string | undefined) => (petId === undefined ? stylize : { ...stylize, petId });
type ErrorBody = { error: { code: number; name: string; message: string; requestId: string } };

/** Job rows written for Ana's key, and the event types of their outbox rows. */
async function writtenFor(key: string): Promise<{ jobs: number; outbox: string[] }> {
  const { rows } = await db.query<{ jobs: string; outbox: string[] }>(
    `SELECT count(DISTINCT j.id) AS jobs, coalesce(array_agg(o.event_type ORDER BY o.event_type) FILTER (WHERE o.id IS NOT NULL), '{}') AS outbox
       FROM jobs.generation_jobs j LEFT JOIN jobs.outbox o ON o.aggregate_id = j.id
      WHERE j.user_id = $1 AND j.idempotency_key = $2`,
    [USERS.ana, key],
  );
  return { jobs: Number(rows[0]!.jobs), outbox: rows[0]!.outbox };
}

const quota = async () => (await ana.call('GET', '/api/v1/me/quota')).body;

describe('gateway - a job of a pet the caller may see', () => {
  it('creates it for the caller’s own pet (201) and shows the pet on the job', async () => {
    const created = await ana.createJob(withPet(PETS.anasCat), newKey());
    expect(created.status).toBe(201);
    expect(created.body.job).toMatchObject({ petId: PETS.anasCat, status: 'queued' });
  });

  it('creates it for a pet its owner shared with the caller (201)', async () => {
    const created = await ana.createJob(withPet(PETS.bensRabbit), newKey());
    expect(created.status).toBe(201);
    expect((created.body.job as ApiJob & { petId: string }).petId).toBe(PETS.bensRabbit);
  });
});

describe('gateway - a job of a pet the caller may not see', () => {
  it('refuses another user’s pet with 404 40401, writing no job and using no quota', async () => {
    const before = await quota();
    const key = newKey();
    const refused = (await ana.createJob(withPet(PETS.caisHorse), key)) as unknown as ApiAnswer<ErrorBody>;
    expect(refused.status).toBe(404);
    expect(refused.body.error).toMatchObject({ code: 40401, name: 'PET_NOT_FOUND' });
    expect(refused.body.error.message).toContain('pet_id');
    expect(await writtenFor(key)).toEqual({ jobs: 0, outbox: [] });
    expect(await quota()).toEqual(before);
  });

  it('answers a pet that does not exist exactly as another user’s, in the caller’s language too', async () => {
    const someoneElses = (await ana.createJob(withPet(PETS.caisHorse), newKey())) as unknown as ApiAnswer<ErrorBody>;
    const key = newKey();
    const unknown = (await ana.createJob(withPet(PETS.unknown), key)) as unknown as ApiAnswer<ErrorBody>;
    expect(unknown.status).toBe(404);
    expect({ ...unknown.body.error, requestId: '' }).toEqual({ ...someoneElses.body.error, requestId: '' });
    expect(await writtenFor(key)).toEqual({ jobs: 0, outbox: [] });
    const chinese = await ana.call<ErrorBody>('POST', '/api/v1/creation/jobs', {
      body: withPet(PETS.unknown),
      headers: { 'idempotency-key': newKey(), 'accept-language': 'zh-CN' },
    });
    expect(chinese.body.error).toMatchObject({ code: 40401, message: '在你的宠物或与你共享的宠物中未找到该宠物。' });
  });
});

describe('gateway - while the pet service is down', () => {
  it('answers 503 with Retry-After and writes nothing; a job without a pet is created; back up, the pet is accepted again', async () => {
    await platform.petDirectory.kill();
    try {
      const before = await quota();
      const key = newKey();
      // A pet jobs has not confirmed before: its cache cannot answer for it.
      const refused = (await ana.createJob(withPet(PETS.anasDog), key)) as unknown as ApiAnswer<ErrorBody>;
      expect(refused.status).toBe(503);
      expect(refused.body.error).toMatchObject({ code: 50300, name: 'UNAVAILABLE' });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(await writtenFor(key)).toEqual({ jobs: 0, outbox: [] });
      expect(await quota()).toEqual(before);

      const withoutPet = await ana.createJob(withPet(undefined), newKey());
      expect(withoutPet.status).toBe(201);
    } finally {
      await platform.restart('petDirectory');
    }
    // The same request, retried as Retry-After says, once jobs' channel has found the pet service again.
    const key = newKey();
    const deadline = Date.now() + 15_000;
    let answer = await ana.createJob(withPet(PETS.anasDog), key);
    while (answer.status === 503 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      answer = await ana.createJob(withPet(PETS.anasDog), key);
    }
    expect(answer.status).toBe(201);
    // Its dispatch and its product event (no worker runs here: the job stays queued).
    expect(await writtenFor(key)).toEqual({ jobs: 1, outbox: ['creation_job_submitted', 'job.dispatch'] });
  });

  it('answers 503 with Retry-After when the pet service hangs, within the deadlines', async () => {
    platform.petDirectory.pause();
    try {
      const key = newKey();
      const startedAt = Date.now();
      const refused = await ana.createJob(withPet(PETS.anasBird), key);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      // PET_DIRECTORY_DEADLINE_MS (1 s) per attempt; the gateway tries an UNAVAILABLE jobs call up to 4 times.
      expect(Date.now() - startedAt).toBeLessThan(8_000);
      expect(await writtenFor(key)).toEqual({ jobs: 0, outbox: [] });
    } finally {
      platform.petDirectory.resume();
    }
  });
});
