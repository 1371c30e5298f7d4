// CreateJob with a pet, against the real pet-directory-sim process (the app's pet service's
// stand-in) over mutual TLS: visible pets are accepted, others refused with nothing written, an
// unreachable or silent pet service is UNAVAILABLE with nothing written, and a replay does not ask it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobsV1 } from '@atelier/contracts';
import { ErrorCode } from '@atelier/errors';
import type { ServiceProcess } from '@atelier/testing';
import { catalogChoice, refusal, startJobsHarness, uploadInputImage, type JobsHarness } from './test-support/jobs-harness.js';

const run = process.pid;
const USERS = { ana: `ana-${run}`, ben: `ben-${run}`, cai: `cai-${run}` };
const PETS = {
  anasCat: '0a7e0000-0000-4000-8000-0000000000a1',
  anasDog: '0a7e0000-0000-4000-8000-0000000000a2',
  anasBird: '0a7e0000-0000-4000-8000-0000000000a3',
  anasFish: '0a7e0000-0000-4000-8000-0000000000a4',
  bensRabbit: '0a7e0000-0000-4000-8000-0000000000b1',
  caisHorse: '0a7e0000-0000-4000-8000-0000000000c1',
  unknown: '0a7e0000-0000-4000-8000-0000000000ff',
};
const SEED = [
  { id: PETS.anasCat, ownerUserId: USERS.ana },
  { id: PETS.anasDog, ownerUserId: USERS.ana },
  { id: PETS.anasBird, ownerUserId: USERS.ana },
  { id: PETS.anasFish, ownerUserId: USERS.ana },
  // Ben's family: he shared his rabbit with Ana.
  { id: PETS.bensRabbit, ownerUserId: USERS.ben, sharedWith: [USERS.ana] },
  { id: PETS.caisHorse, ownerUserId: USERS.cai },
];

let h: JobsHarness;
let petDirectory: ServiceProcess;
let choice: Awaited<ReturnType<typeof catalogChoice>>;
let input: string;

beforeAll(async () => {
  h = await startJobsHarness(
    { PET_DIRECTORY_DEADLINE_MS: 500, QUOTA_MAX_IN_FLIGHT: 1000, QUOTA_DAILY_LIMIT: 100000 },
    { petDirectory: { PET_DIRECTORY_SEED: JSON.stringify(SEED) } },
  );
  petDirectory = h.petDirectory!;
  choice = await catalogChoice(h.catalog);
  input = await uploadInputImage(h.media, USERS.ana);
}, 90_000);

afterAll(async () => {
  // The tests restart the pet service: the harness knows only the process it started first.
  await petDirectory?.stop();
  await h?.stop();
});

let keySeq = 0;
function stylize(petId: string | undefined, key = `pet-key-${++keySeq}`) {
  return jobsV1.CreateJobRequest.fromPartial({
    userId: USERS.ana,
    idempotencyKey: key,
    jobType: 'image.stylize',
    modelId: choice.stylizer.id,
    styleId: choice.style.id,
    inputAssetId: input,
    petId,
    prompt: 'my pet as a watercolour',
  });
}

async function writtenFor(key: string): Promise<{ jobs: number; outbox: number }> {
  const jobs = await h.db.query<{ id: string }>('SELECT id FROM jobs.generation_jobs WHERE user_id = $1 AND idempotency_key = $2', [
    USERS.ana,
    key,
  ]);
  const outbox = jobs.rows[0]
    ? Number((await h.db.query('SELECT count(*) AS n FROM jobs.outbox WHERE aggregate_id = $1', [jobs.rows[0].id])).rows[0].n)
    : 0;
  return { jobs: jobs.rows.length, outbox };
}

describe('jobs - CreateJob with a pet the user may see', () => {
  it('accepts the user’s own pet and records it on the job', async () => {
    const { job, created } = await h.jobs.createJob(stylize(PETS.anasCat));
    expect(created).toBe(true);
    expect(job).toMatchObject({ petId: PETS.anasCat, status: jobsV1.JobStatus.QUEUED });
  });

  it('accepts a pet its owner shared with the user', async () => {
    const { job, created } = await h.jobs.createJob(stylize(PETS.bensRabbit));
    expect(created).toBe(true);
    expect(job!.petId).toBe(PETS.bensRabbit);
  });
});

describe('jobs - CreateJob with a pet the user may not see', () => {
  it('refuses another user’s pet as NOT_FOUND PET_NOT_FOUND, writing nothing', async () => {
    const request = stylize(PETS.caisHorse);
    const error = await refusal(h.jobs.createJob(request));
    expect(error).toMatchObject({ code: ErrorCode.NOT_FOUND, reason: 'PET_NOT_FOUND', field: 'pet_id' });
    expect(await writtenFor(request.idempotencyKey)).toEqual({ jobs: 0, outbox: 0 });
  });

  it('refuses a pet that does not exist with the very same answer', async () => {
    const someoneElses = await refusal(h.jobs.createJob(stylize(PETS.caisHorse)));
    const request = stylize(PETS.unknown);
    const unknown = await refusal(h.jobs.createJob(request));
    // What a caller reads of the refusal, not the transport's headers (their Date may tick between the calls).
    const answer = ({ code, reason, field, message, retryAfterSeconds, params }: typeof unknown) => ({
      code,
      reason,
      field,
      message,
      retryAfterSeconds,
      params,
    });
    expect(answer(unknown)).toEqual(answer(someoneElses));
    expect(answer(unknown)).toMatchObject({ code: ErrorCode.NOT_FOUND, reason: 'PET_NOT_FOUND', field: 'pet_id' });
    expect(await writtenFor(request.idempotencyKey)).toEqual({ jobs: 0, outbox: 0 });
  });
});

describe('jobs - CreateJob while the pet service cannot answer', () => {
  it('is UNAVAILABLE with nothing written when the pet service is down or silent; a job without a pet does not ask it', async () => {
    const confirmed = stylize(PETS.anasDog, 'pet-confirmed');
    await h.jobs.createJob(confirmed);

    await petDirectory.kill();
    const down = stylize(PETS.anasBird);
    await expect(refusal(h.jobs.createJob(down))).resolves.toMatchObject({ code: ErrorCode.UNAVAILABLE });
    expect(await writtenFor(down.idempotencyKey)).toEqual({ jobs: 0, outbox: 0 });
    // Within its TTL a pair the pet service confirmed is answered from jobs' cache.
    await expect(h.jobs.createJob(stylize(PETS.anasDog))).resolves.toMatchObject({ created: true });
    await expect(h.jobs.createJob(stylize(undefined))).resolves.toMatchObject({ created: true, job: { petId: undefined } });

    petDirectory = await petDirectory.restart();
    petDirectory.pause();
    try {
      const silent = stylize(PETS.anasFish);
      const startedAt = Date.now();
      await expect(refusal(h.jobs.createJob(silent))).resolves.toMatchObject({ code: ErrorCode.UNAVAILABLE });
      // Each attempt waits PET_DIRECTORY_DEADLINE_MS (500 ms here) for the pet service; the calling
      // client (as the gateway's) tries an UNAVAILABLE call up to 4 times. Without the deadline
      // the first attempt alone would wait 5 s.
      expect(Date.now() - startedAt, 'PET_DIRECTORY_DEADLINE_MS bounds the wait').toBeLessThan(4_000);
      expect(await writtenFor(silent.idempotencyKey)).toEqual({ jobs: 0, outbox: 0 });
    } finally {
      petDirectory.resume();
    }
  });

  it('answers a replay from its key without the pet service, and asks it again for a new key (no cache)', async () => {
    await h.restart({ PET_DIRECTORY_CACHE_TTL_MS: 0 });
    try {
      const first = await h.jobs.createJob(stylize(PETS.anasCat, 'pet-replay'));
      await petDirectory.kill();
      await expect(h.jobs.createJob(stylize(PETS.anasCat, 'pet-replay'))).resolves.toMatchObject({
        created: false,
        job: { id: first.job!.id },
      });
      await expect(refusal(h.jobs.createJob(stylize(PETS.anasCat)))).resolves.toMatchObject({ code: ErrorCode.UNAVAILABLE });
      petDirectory = await petDirectory.restart();
      // The channel finds the pet service again within its reconnect backoff (2 s at most).
      const deadline = Date.now() + 10_000;
      let answer: jobsV1.CreateJobResponse | undefined;
      while (!answer && Date.now() < deadline)
        answer = await h.jobs.createJob(stylize(PETS.anasCat, 'pet-after-restart')).catch(() => undefined);
      expect(answer).toMatchObject({ created: true, job: { petId: PETS.anasCat } });
    } finally {
      await h.restart({ PET_DIRECTORY_CACHE_TTL_MS: 30_000 });
    }
  });

  it('fails closed when the pet service’s certificate proves another identity than PET_DIRECTORY_IDENTITY', async () => {
    await h.restart({ PET_DIRECTORY_IDENTITY: 'pets' });
    try {
      const request = stylize(PETS.anasCat);
      await expect(refusal(h.jobs.createJob(request))).resolves.toMatchObject({ code: ErrorCode.UNAVAILABLE });
      expect(await writtenFor(request.idempotencyKey)).toEqual({ jobs: 0, outbox: 0 });
    } finally {
      await h.restart({ PET_DIRECTORY_IDENTITY: 'pet-directory-sim' });
    }
  });
});
