import type { FastifyInstance } from 'fastify';
import { callerOf } from '../auth/authenticate.js';
import type { GatewayContext } from '../gateway-context.js';
import { object, responses } from '../http/schemas.js';

const count = { type: 'integer', minimum: 0 } as const;

const example = {
  daily: { used: 17, limit: 20, remaining: 3, resetsAt: '2026-12-02T00:00:00.000Z' },
  inFlight: { count: 1, limit: 2, remaining: 1 },
  remainingNow: 1,
  whatCounts: {
    jobTypes: ['image.stylize', 'image.upscale'],
    daily:
      'A generation created since 00:00 UTC counts while it is queued or running, once it succeeded, and once it was sent to the AI provider, …',
    inFlight: 'Every generation queued or running now counts, whatever day it was created.',
  },
};

const quotaSchema = {
  ...object({
    daily: object({
      used: { ...count, description: 'generations created today (UTC) that count, per whatCounts.daily' },
      limit: count,
      remaining: { ...count, description: 'max(0, limit - used)' },
      resetsAt: { type: 'string', format: 'date-time', description: 'the end of the current UTC day, when used starts again from 0' },
    }),
    inFlight: object({
      count: { ...count, description: 'generations queued or running now' },
      limit: count,
      remaining: { ...count, description: 'max(0, limit - count)' },
    }),
    remainingNow: {
      ...count,
      description:
        'creates accepted now, one after the other, if none of yours ends meanwhile (the lesser of both remaining). 0: the next POST /api/v1/creation/jobs is 429 GENERATION_QUOTA_EXCEEDED. A snapshot: a create from another device may take the last one',
    },
    whatCounts: object({
      jobTypes: { type: 'array', items: { type: 'string' }, description: 'the job types the quota counts; others are free' },
      daily: { type: 'string', description: 'which generations count towards daily.used, from the rule the jobs service applies' },
      inFlight: { type: 'string', description: 'which generations count towards inFlight.count' },
    }),
  }),
  examples: [example],
};

/** GET /api/v1/me/quota: the caller's generation quota, as the jobs service counts it for CreateJob (GetQuota). */
export function registerQuotaRoute(app: FastifyInstance, { peers }: GatewayContext): void {
  app.get(
    '/api/v1/me/quota',
    {
      schema: {
        operationId: 'getQuota',
        tags: ['creation'],
        summary: "The caller's generation quota: used and left today, in flight, and what counts",
        response: responses({ 200: quotaSchema }),
      },
    },
    async (request) => {
      const quota = await peers.jobs.getQuota({ userId: callerOf(request).userId });
      return {
        daily: {
          used: quota.dailyUsed,
          limit: quota.dailyLimit,
          remaining: quota.dailyRemaining,
          resetsAt: quota.dailyResetsAt!.toISOString(),
        },
        inFlight: { count: quota.inFlight, limit: quota.maxInFlight, remaining: quota.inFlightRemaining },
        remainingNow: quota.remainingNow,
        whatCounts: { jobTypes: quota.countedJobTypes, daily: quota.dailyRule, inFlight: quota.inFlightRule },
      };
    },
  );
}
