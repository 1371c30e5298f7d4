import type { FastifyInstance } from 'fastify';
import { callerOf } from '../auth/authenticate.js';
import type { GatewayContext } from '../gateway-context.js';
import { object, responses } from '../http/schemas.js';

const count = { type: 'integer', minimum: 0 } as const;
const dateTime = { type: 'string', format: 'date-time' } as const;

const rule =
  'A generation counts towards the day and the month (UTC) it was created in — since 00:00 UTC today for the daily allowance, since 00:00 UTC on the 1st for the monthly one — while it is queued or running, once it succeeded, and once it was sent to the AI provider, …';
const example = {
  daily: { used: 17, limit: 20, remaining: 3, resetsAt: '2026-12-02T00:00:00.000Z' },
  monthly: { used: 212, limit: 300, remaining: 88, resetsAt: '2027-01-01T00:00:00.000Z' },
  inFlight: { count: 1, limit: 2, remaining: 1 },
  remainingNow: 1,
  whatCounts: {
    jobTypes: ['image.stylize', 'image.upscale'],
    daily: rule,
    monthly: rule,
    inFlight: 'Every generation queued or running now counts, whatever day it was created.',
  },
};

const quotaSchema = {
  ...object({
    daily: object({
      used: { ...count, description: 'generations created today (UTC) that count, per whatCounts.daily' },
      limit: count,
      remaining: { ...count, description: 'max(0, limit - used)' },
      resetsAt: { ...dateTime, description: 'the end of the current UTC day, when used starts again from 0' },
    }),
    monthly: object({
      used: {
        ...count,
        description:
          'generations created this calendar month (UTC), today’s included, that count — the same rule as daily (whatCounts.monthly). Exact up to limit; past it the earlier days are counted up to limit only',
      },
      limit: count,
      remaining: { ...count, description: 'max(0, limit - used)' },
      resetsAt: { ...dateTime, description: 'the first midnight (UTC) of the next month, when used starts again from 0' },
    }),
    inFlight: object({
      count: { ...count, description: 'generations queued or running now' },
      limit: count,
      remaining: { ...count, description: 'max(0, limit - count)' },
    }),
    remainingNow: {
      ...count,
      description:
        'creates accepted now, one after the other, if none of yours ends meanwhile (the least of the three remaining). 0: the next POST /api/v1/creation/jobs is 429 — GENERATION_MONTHLY_QUOTA_EXCEEDED (42902) when monthly.remaining is 0, else GENERATION_QUOTA_EXCEEDED (42900). A snapshot: a create from another device may take the last one',
    },
    whatCounts: object({
      jobTypes: { type: 'array', items: { type: 'string' }, description: 'the job types the quota counts; others are free' },
      daily: { type: 'string', description: 'which generations count towards daily.used, from the rule the jobs service applies' },
      monthly: { type: 'string', description: 'which generations count towards monthly.used: the same rule as daily, over the month' },
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
        summary: "The caller's generation quota: used and left today and this month, in flight, and what counts",
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
        monthly: {
          used: quota.monthlyUsed,
          limit: quota.monthlyLimit,
          remaining: quota.monthlyRemaining,
          resetsAt: quota.monthlyResetsAt!.toISOString(),
        },
        inFlight: { count: quota.inFlight, limit: quota.maxInFlight, remaining: quota.inFlightRemaining },
        remainingNow: quota.remainingNow,
        // One rule for both windows (GetQuota's daily_rule).
        whatCounts: { jobTypes: quota.countedJobTypes, daily: quota.dailyRule, monthly: quota.dailyRule, inFlight: quota.inFlightRule },
      };
    },
  );
}
