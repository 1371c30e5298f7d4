import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { jobsV1 } from '@atelier/contracts';
import { UnavailableError } from '@atelier/errors';
import type { FastifyInstance } from 'fastify';
import type { GatewayPeers } from '../gateway-context.js';
import { gatewayOverFakePeers } from '../test-support/gateway-over-fake-peers.js';

// GET /api/v1/me/quota over a fake of jobs' GetQuota: whose quota is asked for, how it is shown,
// and what the app sees when jobs cannot answer.
const answer: jobsV1.GetQuotaResponse = {
  dailyUsed: 17,
  dailyLimit: 20,
  dailyRemaining: 3,
  dailyResetsAt: new Date('2026-12-02T00:00:00Z'),
  monthlyUsed: 300,
  monthlyLimit: 300,
  monthlyRemaining: 0,
  monthlyResetsAt: new Date('2027-01-01T00:00:00Z'),
  inFlight: 2,
  maxInFlight: 2,
  inFlightRemaining: 0,
  remainingNow: 0,
  countedJobTypes: ['image.stylize', 'image.upscale'],
  dailyRule: 'A generation created since 00:00 UTC counts while it is queued or running.',
  inFlightRule: 'Every generation queued or running now counts.',
};
const asked: string[] = [];
let jobsDown = false;

const peers = {
  jobs: {
    getQuota: async ({ userId }: jobsV1.GetQuotaRequest) => {
      asked.push(userId);
      if (jobsDown) throw new UnavailableError('jobs is not answering');
      return answer;
    },
  },
} as unknown as GatewayPeers;

let app: FastifyInstance;
let alice: string;

beforeAll(async () => {
  const gateway = await gatewayOverFakePeers(peers);
  app = gateway.app;
  alice = await gateway.token('alice');
});

afterAll(async () => {
  await app?.close();
});

beforeEach(() => {
  asked.length = 0;
  jobsDown = false;
});

const getQuota = (headers: Record<string, string> = { authorization: `Bearer ${alice}` }) =>
  app.inject({ method: 'GET', url: '/api/v1/me/quota', headers });

describe('GET /api/v1/me/quota', () => {
  it("answers the token's user quota: used and left today and this month, the resets, in flight, and what counts", async () => {
    const response = await getQuota();
    expect(response.statusCode).toBe(200);
    expect(asked).toEqual(['alice']);
    expect(response.json()).toEqual({
      daily: { used: 17, limit: 20, remaining: 3, resetsAt: '2026-12-02T00:00:00.000Z' },
      monthly: { used: 300, limit: 300, remaining: 0, resetsAt: '2027-01-01T00:00:00.000Z' },
      inFlight: { count: 2, limit: 2, remaining: 0 },
      remainingNow: 0,
      whatCounts: {
        jobTypes: ['image.stylize', 'image.upscale'],
        daily: answer.dailyRule,
        monthly: answer.dailyRule,
        inFlight: answer.inFlightRule,
      },
    });
  });

  it('refuses a request without a token before asking jobs', async () => {
    const response = await getQuota({});
    expect(response.statusCode).toBe(401);
    expect(response.json().error).toMatchObject({ code: 40101, name: 'UNAUTHENTICATED' });
    expect(asked).toEqual([]);
  });

  it('answers 503 UNAVAILABLE when jobs cannot answer', async () => {
    jobsDown = true;
    const response = await getQuota();
    expect(response.statusCode).toBe(503);
    expect(response.json().error).toMatchObject({ code: 50300, name: 'UNAVAILABLE' });
  });

  it('is in the OpenAPI document with its example', async () => {
    const document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const ok = document.paths['/api/v1/me/quota'].get.responses['200'].content['application/json'];
    expect(ok.schema.required).toEqual(['daily', 'monthly', 'inFlight', 'remainingNow', 'whatCounts']);
    expect(ok.example).toMatchObject({ remainingNow: 1, daily: { limit: 20 }, monthly: { limit: 300 } });
  });
});
