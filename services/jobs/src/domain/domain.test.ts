import { describe, expect, it } from 'vitest';
import { requestHash } from '@atelier/encoding';
import { secondsToNextUtcDay } from '@atelier/errors';
import { createRegistry, type JobCommand } from '../definitions/index.js';
import { quotaRefusal, quotaStanding } from './quota.js';
import { decideFailure, decideLeaseExpiry } from './retry-policy.js';

const registry = createRegistry();
const stylize = registry.get('image.stylize');
const imageUpscale = registry.get('image.upscale');

describe('request hash - canonical command', () => {
  const command: JobCommand = {
    jobType: 'image.stylize',
    petId: null,
    modelId: 'm',
    styleId: 's',
    inputAssetId: 'a',
    prompt: 'a cat',
    negativePrompt: '',
    width: null,
    height: null,
    parameters: { strength: 0.5, seed: 7 },
  };
  it('does not depend on key order and is 32 bytes', () => {
    const reordered = { ...command, parameters: { seed: 7, strength: 0.5 } };
    expect(requestHash(reordered).equals(requestHash(command))).toBe(true);
    expect(requestHash(command)).toHaveLength(32);
  });
  it('stays what it was: hashes stored with idempotency keys must keep matching', () => {
    expect(requestHash(command).toString('hex')).toBe('5e30d39578d81793706fb89429961c202fd07d161426b105c8dedbab9d2c95b1');
  });
  it('changes with any field of the command', () => {
    expect(requestHash({ ...command, prompt: 'a dog' }).equals(requestHash(command))).toBe(false);
    expect(requestHash({ ...command, parameters: { strength: 0.6, seed: 7 } }).equals(requestHash(command))).toBe(false);
  });
});

describe('quota - a refusal: its retry-after, reset and message (which allowance refused is the create statement’s)', () => {
  const limits = { dailyLimit: 20, monthlyLimit: 300, maxInFlight: 2, inFlightRetryAfterSeconds: 10 };
  const noon = new Date('2026-11-30T12:00:00.000Z');
  it('refuses over the daily limit until the next UTC day, naming the daily allowance', () => {
    expect(quotaRefusal('daily', limits, noon)).toEqual({
      allowance: 'daily',
      reason: 'GENERATION_QUOTA_EXCEEDED',
      retryAfterSeconds: 12 * 3600,
      resetsAt: new Date('2026-12-01T00:00:00.000Z'),
      message: 'daily limit of 20 generations reached; it resets at 00:00 UTC',
      params: { variant: 'daily', allowance: 'daily', limit: 20, resetsAt: '2026-12-01T00:00:00.000Z' },
    });
    expect(secondsToNextUtcDay(new Date('2026-11-30T23:59:59.500Z'))).toBe(1);
  });
  it('refuses over the monthly limit until the 1st of the next UTC month with its own reason, even while the day has room', () => {
    const midMonth = new Date('2026-11-14T18:00:00.000Z');
    expect(quotaRefusal('monthly', limits, midMonth)).toEqual({
      allowance: 'monthly',
      reason: 'GENERATION_MONTHLY_QUOTA_EXCEEDED',
      retryAfterSeconds: (16 * 24 + 6) * 3600,
      resetsAt: new Date('2026-12-01T00:00:00.000Z'),
      message: 'monthly limit of 300 generations reached; it resets on the 1st of next month at 00:00 UTC',
      params: { variant: 'monthly', allowance: 'monthly', limit: 300, resetsAt: '2026-12-01T00:00:00.000Z' },
    });
  });
  it('refuses over the in-flight limit with the fixed small retry-after and no reset time', () => {
    expect(quotaRefusal('in_flight', limits, noon)).toMatchObject({
      allowance: 'in_flight',
      reason: 'GENERATION_QUOTA_EXCEEDED',
      retryAfterSeconds: 10,
      resetsAt: null,
      params: { variant: 'in_flight', allowance: 'in_flight', limit: 2 },
    });
    expect(quotaRefusal('in_flight', limits, noon).params).not.toHaveProperty('resetsAt');
  });
  it('reports as left now the least of the three limits, never below 0 (limits lowered under a user)', () => {
    expect(quotaStanding({ today: 17, thisMonth: 100, inFlight: 1 }, limits)).toEqual({
      dailyRemaining: 3,
      monthlyRemaining: 200,
      inFlightRemaining: 1,
      remainingNow: 1,
    });
    expect(quotaStanding({ today: 25, thisMonth: 25, inFlight: 0 }, limits)).toMatchObject({ dailyRemaining: 0, remainingNow: 0 });
    expect(quotaStanding({ today: 0, thisMonth: 0, inFlight: 3 }, limits)).toMatchObject({ inFlightRemaining: 0, remainingNow: 0 });
    expect(quotaStanding({ today: 2, thisMonth: 299, inFlight: 0 }, limits)).toEqual({
      dailyRemaining: 18,
      monthlyRemaining: 1,
      inFlightRemaining: 2,
      remainingNow: 1,
    });
    expect(quotaStanding({ today: 2, thisMonth: 310, inFlight: 0 }, limits)).toMatchObject({ monthlyRemaining: 0, remainingNow: 0 });
  });
});

describe('retry policy - requeue or fail', () => {
  const facts = {
    errorClass: 'provider' as const,
    retryable: true,
    attempt: 1,
    maxAttempts: 3,
    earlierInternalFailures: 0,
    earlierValidationFailures: 0,
  };
  it('retries provider, validation and timeout errors while attempts remain', () => {
    expect(decideFailure(facts, stylize, () => 0.5)).toEqual({ outcome: 'requeue', delayMs: 2000 });
    expect(decideFailure({ ...facts, errorClass: 'validation', attempt: 2 }, stylize, () => 0.5)).toEqual({
      outcome: 'requeue',
      delayMs: 4000,
    });
    expect(decideFailure({ ...facts, errorClass: 'timeout' }, stylize).outcome).toBe('requeue');
    expect(decideFailure({ ...facts, attempt: 3 }, stylize).outcome).toBe('fail');
  });
  it('never retries content-safety or credential errors, nor what the worker calls final', () => {
    expect(decideFailure({ ...facts, errorClass: 'content_safety' }, stylize).outcome).toBe('fail');
    expect(decideFailure({ ...facts, errorClass: 'credential' }, stylize).outcome).toBe('fail');
    expect(decideFailure({ ...facts, retryable: false }, stylize).outcome).toBe('fail');
  });
  it('retries an internal error once', () => {
    expect(decideFailure({ ...facts, errorClass: 'internal' }, stylize).outcome).toBe('requeue');
    expect(decideFailure({ ...facts, errorClass: 'internal', attempt: 2, earlierInternalFailures: 1 }, stylize).outcome).toBe('fail');
  });
  it("retries refused outputs at most the type's validationRetries times, even with attempts left", () => {
    const upscaleFacts = { ...facts, errorClass: 'validation' as const, maxAttempts: 4 };
    expect(imageUpscale.output?.validationRetries).toBe(2);
    expect(decideFailure({ ...upscaleFacts, attempt: 2, earlierValidationFailures: 1 }, imageUpscale).outcome).toBe('requeue');
    expect(decideFailure({ ...upscaleFacts, attempt: 3, earlierValidationFailures: 2 }, imageUpscale).outcome).toBe('fail');
    // Other failures in between do not use up the validation retries.
    expect(decideFailure({ ...upscaleFacts, attempt: 3, earlierValidationFailures: 1 }, imageUpscale).outcome).toBe('requeue');
    expect(decideFailure({ ...upscaleFacts, errorClass: 'provider', attempt: 3, earlierValidationFailures: 2 }, imageUpscale).outcome).toBe(
      'requeue',
    );
  });
  it('ends a cancelled attempt cancelled', () => {
    expect(decideFailure({ ...facts, errorClass: 'cancelled' }, stylize)).toEqual({ outcome: 'cancel' });
  });
  it("waits the definition's backoff, jittered", () => {
    expect(decideFailure(facts, stylize, () => 0)).toEqual({ outcome: 'requeue', delayMs: 1600 });
    expect(decideFailure(facts, stylize, () => 1)).toEqual({ outcome: 'requeue', delayMs: 2400 });
  });
});

describe('retry policy - an expired lease', () => {
  const facts = { attempt: 1, maxAttempts: 3, earlierLeaseExpiries: 0 };
  it("queues the job again at once the first time: a frozen or lost worker is not the job's fault", () => {
    expect(decideLeaseExpiry(facts, stylize)).toEqual({ requeue: true, delayMs: 0 });
    // Earlier attempts that failed otherwise do not count: this is its first lost lease.
    expect(decideLeaseExpiry({ ...facts, attempt: 2 }, stylize)).toEqual({ requeue: true, delayMs: 0 });
  });
  it('backs off from the second expiry on (a job that may be what kills its workers), counted in expiries', () => {
    expect(decideLeaseExpiry({ ...facts, attempt: 2, earlierLeaseExpiries: 1 }, stylize, () => 0.5)).toEqual({
      requeue: true,
      delayMs: 2000,
    });
    expect(decideLeaseExpiry({ attempt: 3, maxAttempts: 4, earlierLeaseExpiries: 2 }, stylize, () => 0.5)).toEqual({
      requeue: true,
      delayMs: 4000,
    });
  });
  it('fails the job once its attempts are spent', () => {
    expect(decideLeaseExpiry({ ...facts, attempt: 3 }, stylize)).toEqual({ requeue: false });
    expect(decideLeaseExpiry({ ...facts, attempt: 3, earlierLeaseExpiries: 2 }, stylize)).toEqual({ requeue: false });
  });
});
