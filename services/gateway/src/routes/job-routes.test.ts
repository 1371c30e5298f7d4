import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { jobsV1, type mediaV1 } from '@atelier/contracts';
import { NotFoundError } from '@atelier/errors';
import type { FastifyInstance } from 'fastify';
import type { GatewayPeers } from '../gateway-context.js';
import { gatewayOverFakePeers } from '../test-support/gateway-over-fake-peers.js';

// The job routes over fakes of jobs and media that count their calls: which reads the gateway
// answers from its remembered terminal views, and which still go to jobs.
const ids = {
  queued: '019a0000-0000-7000-8000-000000000001',
  succeeded: '019a0000-0000-7000-8000-000000000002',
  listed: '019a0000-0000-7000-8000-000000000003',
  cancelled: '019a0000-0000-7000-8000-000000000004',
  streamed: '019a0000-0000-7000-8000-000000000005',
};
const at = new Date('2026-12-01T00:00:00Z');
const jobOf = (id: string, status: jobsV1.JobStatus, version = 3) =>
  jobsV1.Job.fromPartial({
    id,
    userId: 'alice',
    jobType: 'image.stylize',
    status,
    outputAssetId: status === jobsV1.JobStatus.SUCCEEDED ? '019a0000-0000-7000-8000-0000000000ff' : undefined,
    createdAt: at,
    updatedAt: at,
    version,
  });
const stored = new Map<string, jobsV1.Job>([
  [ids.queued, jobOf(ids.queued, jobsV1.JobStatus.QUEUED)],
  [ids.succeeded, jobOf(ids.succeeded, jobsV1.JobStatus.SUCCEEDED)],
  [ids.listed, jobOf(ids.listed, jobsV1.JobStatus.FAILED)],
  [ids.cancelled, jobOf(ids.cancelled, jobsV1.JobStatus.RUNNING)],
  [ids.streamed, jobOf(ids.streamed, jobsV1.JobStatus.RUNNING)],
]);
const calls = { getJob: [] as string[], getAsset: 0, createJob: [] as jobsV1.CreateJobRequest[] };

const peers = {
  jobs: {
    createJob: async (request: jobsV1.CreateJobRequest) => {
      calls.createJob.push(request);
      const deadline = request.startWithinSeconds === undefined ? undefined : new Date(at.getTime() + request.startWithinSeconds * 1000);
      return { job: { ...jobOf(ids.queued, jobsV1.JobStatus.QUEUED, 1), startDeadlineAt: deadline }, created: true };
    },
    getJob: async ({ jobId, userId }: jobsV1.GetJobRequest) => {
      calls.getJob.push(jobId);
      const job = stored.get(jobId);
      if (!job || userId !== job.userId) throw new NotFoundError('job');
      return { job };
    },
    listJobs: async ({ userId }: jobsV1.ListJobsRequest) => ({
      jobs: userId === 'alice' ? [stored.get(ids.listed)!] : [],
      nextPageToken: '',
    }),
    cancelJob: async ({ jobId }: jobsV1.CancelJobRequest) => {
      const job = { ...stored.get(jobId)!, status: jobsV1.JobStatus.CANCELLED, version: 4 };
      stored.set(jobId, job);
      return { job };
    },
    watchJob: ({ jobId }: jobsV1.WatchJobRequest) => ({
      cancel() {},
      async *[Symbol.asyncIterator]() {
        yield { job: stored.get(jobId)! };
        const done = { ...stored.get(jobId)!, status: jobsV1.JobStatus.SUCCEEDED, version: 4, outputAssetId: ids.listed };
        stored.set(jobId, done);
        yield { job: done };
      },
    }),
  },
  media: {
    getAsset: async ({ assetId }: mediaV1.GetAssetRequest) => {
      calls.getAsset += 1;
      return { downloadUrl: `http://s3.test/${assetId}`, downloadExpiresAt: new Date(Date.now() + 300_000) };
    },
  },
} as unknown as GatewayPeers;

let app: FastifyInstance;
let alice: string;
let bob: string;

beforeAll(async () => {
  const gateway = await gatewayOverFakePeers(peers);
  app = gateway.app;
  [alice, bob] = await Promise.all([gateway.token('alice'), gateway.token('bob')]);
});

afterAll(async () => {
  await app?.close();
});

beforeEach(() => {
  calls.getJob = [];
});

const get = (id: string, token = alice) =>
  app.inject({ method: 'GET', url: `/api/v1/creation/jobs/${id}`, headers: { authorization: `Bearer ${token}` } });

describe('job routes - remembered terminal views', () => {
  it('asks jobs for a queued job on every read', async () => {
    for (let i = 0; i < 3; i += 1) expect((await get(ids.queued)).json().job.status).toBe('queued');
    expect(calls.getJob).toEqual([ids.queued, ids.queued, ids.queued]);
  });

  it('answers a second read of a succeeded job without jobs, with the same body and a live output URL', async () => {
    const first = await get(ids.succeeded);
    const second = await get(ids.succeeded);
    expect(calls.getJob).toEqual([ids.succeeded]);
    expect(second.statusCode).toBe(200);
    expect(second.body).toBe(first.body);
    expect(second.json().job).toMatchObject({ status: 'succeeded', outputUrl: expect.stringMatching(/^http:\/\/s3\.test\//) });
  });

  it("answers another user's read of a remembered job as jobs does: 404 JOB_NOT_FOUND, asked of jobs", async () => {
    await get(ids.succeeded);
    calls.getJob = [];
    const stranger = await get(ids.succeeded, bob);
    expect(stranger.statusCode).toBe(404);
    expect(stranger.json().error).toMatchObject({ code: 40407, name: 'JOB_NOT_FOUND' });
    expect(calls.getJob).toEqual([ids.succeeded]);
    const unknown = await get('019a0000-0000-7000-8000-0000000000ee', bob);
    expect({ ...unknown.json().error, requestId: '' }).toEqual({ ...stranger.json().error, requestId: '' });
  });

  it('remembers terminal jobs from a list, a cancel and the last event of a stream', async () => {
    const headers = { authorization: `Bearer ${alice}` };
    expect((await app.inject({ method: 'GET', url: '/api/v1/creation/jobs', headers })).statusCode).toBe(200);
    expect((await app.inject({ method: 'POST', url: `/api/v1/creation/jobs/${ids.cancelled}/cancel`, headers })).statusCode).toBe(200);
    const stream = await app.inject({ method: 'GET', url: `/api/v1/creation/jobs/${ids.streamed}/events`, headers });
    expect(stream.body).toContain('"status":"succeeded"');
    calls.getJob = [];
    expect((await get(ids.listed)).json().job.status).toBe('failed');
    expect((await get(ids.cancelled)).json().job.status).toBe('cancelled');
    expect((await get(ids.streamed)).json().job).toMatchObject({ status: 'succeeded', version: 4 });
    expect(calls.getJob).toEqual([]);
  });

  it('counts hits and misses in atelier_gateway_job_view_cache_total', async () => {
    const metrics = (await app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toMatch(/atelier_gateway_job_view_cache_total\{result="hit"[^}]*\} [1-9]/);
    expect(metrics).toMatch(/atelier_gateway_job_view_cache_total\{result="miss"[^}]*\} [1-9]/);
  });
});

describe('job routes - start deadlines', () => {
  const create = (body: object) =>
    app.inject({
      method: 'POST',
      url: '/api/v1/creation/jobs',
      headers: { authorization: `Bearer ${alice}`, 'idempotency-key': `deadline-${Math.random()}` },
      payload: body,
    });

  beforeEach(() => {
    calls.createJob = [];
  });

  it('passes startWithinSeconds to jobs and shows the deadline as startDeadlineAt', async () => {
    const answer = await create({ jobType: 'image.stylize', startWithinSeconds: 30 });
    expect(answer.statusCode).toBe(201);
    expect(calls.createJob.map((request) => request.startWithinSeconds)).toEqual([30]);
    expect(answer.json().job.startDeadlineAt).toBe('2026-12-01T00:00:30.000Z');
  });

  it('leaves it out when absent: no deadline, startDeadlineAt null', async () => {
    const answer = await create({ jobType: 'image.stylize' });
    expect(answer.statusCode).toBe(201);
    expect(calls.createJob[0]!.startWithinSeconds).toBeUndefined();
    expect(answer.json().job.startDeadlineAt).toBeNull();
  });

  it.each([0, -1, 86_401, 2.5])('refuses startWithinSeconds=%s with 400 naming the field, without calling jobs', async (value) => {
    const answer = await create({ jobType: 'image.stylize', startWithinSeconds: value });
    expect(answer.statusCode).toBe(400);
    expect(answer.json().error).toMatchObject({ code: 40000, name: 'BAD_REQUEST' });
    expect(answer.json().error.message).toContain('body.startWithinSeconds');
    expect(calls.createJob).toEqual([]);
  });
});
