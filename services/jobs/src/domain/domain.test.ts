import { describe, expect, it } from 'vitest';
import { requestHash } from '@atelier/encoding';
import { secondsToNextUtcDay } from '@atelier/errors';
import { createRegistry, type JobCommand } from '../definitions/index.js';
import { quotaRefusal, quotaStanding } from './quota.js';
import { decideFailure } from './retry-policy.js';

const registry = createRegistry();
const stylize = registry.get('image.stylize');

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

describe('quota - which limit refused, and retry-after', () => {
  const limits = { dailyLimit: 20, maxInFlight: 2, inFlightRetryAfterSeconds: 10 };
  const noon = new Date('2026-11-30T12:00:00.000Z');
  it('refuses over the daily limit until the next UTC day', () => {
    expect(quotaRefusal({ today: 20, inFlight: 0 }, limits, noon)).toMatchObject({
      limit: 'daily',
      retryAfterSeconds: 12 * 3600,
    });
    expect(secondsToNextUtcDay(new Date('2026-11-30T23:59:59.500Z'))).toBe(1);
  });
  it('refuses over the in-flight limit with the fixed small retry-after', () => {
    expect(quotaRefusal({ today: 3, inFlight: 2 }, limits, noon)).toMatchObject({
      limit: 'in_flight',
      retryAfterSeconds: 10,
    });
  });
  it('reports as left now the lesser of both limits, never below 0 (limits lowered under a user)', () => {
    expect(quotaStanding({ today: 17, inFlight: 1 }, limits)).toEqual({ dailyRemaining: 3, inFlightRemaining: 1, remainingNow: 1 });
    expect(quotaStanding({ today: 25, inFlight: 0 }, limits)).toEqual({ dailyRemaining: 0, inFlightRemaining: 2, remainingNow: 0 });
    expect(quotaStanding({ today: 0, inFlight: 3 }, limits)).toEqual({ dailyRemaining: 20, inFlightRemaining: 0, remainingNow: 0 });
  });
});

describe('retry policy - requeue or fail', () => {
  const facts = { errorClass: 'provider' as const, retryable: true, attempt: 1, maxAttempts: 3, earlierInternalFailures: 0 };
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
  it('ends a cancelled attempt cancelled', () => {
    expect(decideFailure({ ...facts, errorClass: 'cancelled' }, stylize)).toEqual({ outcome: 'cancel' });
  });
  it("waits the definition's backoff, jittered", () => {
    expect(decideFailure(facts, stylize, () => 0)).toEqual({ outcome: 'requeue', delayMs: 1600 });
    expect(decideFailure(facts, stylize, () => 1)).toEqual({ outcome: 'requeue', delayMs: 2400 });
  });
});
