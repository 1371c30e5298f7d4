import { describe, expect, it } from 'vitest';
import { ApiError } from './api-error.js';
import { chooseSimulation, jobOfIdempotencyKey, parseSimulationDirectives, SIMULATION_KINDS } from './simulation-directives.js';

describe('simulation directives - parsing the prompt', () => {
  it('reads #sim, #sim-once, #sim-latency and #sim-flaky anywhere in the prompt', () => {
    expect(parseSimulationDirectives('a cat in a hat #sim:hang and #sim-once:rate_limit #sim-latency=250 #sim-flaky=2')).toEqual({
      always: 'hang',
      once: 'rate_limit',
      latencyMs: 250,
      flakyReads: 2,
    });
  });

  it('ends a directive at a comma, as when a style preset follows the prompt', () => {
    expect(parseSimulationDirectives('#sim:hang, a comic book panel with bold ink outlines')).toEqual({ always: 'hang' });
    expect(parseSimulationDirectives('a cat #sim-latency=250, 16-bit pixel art')).toEqual({ latencyMs: 250 });
  });

  it('finds nothing in an ordinary or missing prompt', () => {
    expect(parseSimulationDirectives('a sim city at dusk, #1 poster')).toEqual({});
    expect(parseSimulationDirectives(undefined)).toEqual({});
  });

  it('accepts every documented kind and keeps the first of a repeated directive', () => {
    for (const kind of SIMULATION_KINDS) expect(parseSimulationDirectives(`#sim:${kind}`).always).toBe(kind);
    expect(parseSimulationDirectives('#sim:flagged #sim:hang').always).toBe('flagged');
  });

  it('refuses an unknown kind, a malformed latency or read count with a 400 naming input.prompt', () => {
    for (const prompt of [
      '#sim:explode',
      '#sim-once:',
      '#sim-latency=fast',
      '#sim-latency=-5',
      '#sim-latency=600001',
      '#sim-flaky=many',
      '#sim-flaky=21',
    ]) {
      const error = (() => {
        try {
          parseSimulationDirectives(prompt);
        } catch (caught) {
          return caught;
        }
      })();
      expect(error, prompt).toBeInstanceOf(ApiError);
      expect((error as ApiError).statusCode).toBe(400);
      expect((error as ApiError).message).toMatch(/^input\.prompt: /);
    }
  });
});

describe('simulation directives - choosing the failure', () => {
  const base = { failureRate: 0, failureKind: 'prediction_failed' as const, random: () => 0.5 };

  it('applies #sim-once on the first POST of the job only, then falls back to #sim', () => {
    const directives = { once: 'unavailable' as const, always: 'flagged' as const };
    expect(chooseSimulation({ ...base, directives, firstPostOfJob: true })).toBe('unavailable');
    expect(chooseSimulation({ ...base, directives, firstPostOfJob: false })).toBe('flagged');
    expect(chooseSimulation({ ...base, directives: { once: 'hang' }, firstPostOfJob: false })).toBeUndefined();
  });

  it('injects the global failure kind at the configured rate when no directive applies', () => {
    const globalKind = { ...base, failureKind: 'rate_limit' as const, directives: {}, firstPostOfJob: true };
    expect(chooseSimulation({ ...globalKind, failureRate: 0.6, random: () => 0.59 })).toBe('rate_limit');
    expect(chooseSimulation({ ...globalKind, failureRate: 0.6, random: () => 0.6 })).toBeUndefined();
    expect(chooseSimulation({ ...globalKind, failureRate: 0, random: () => 0 })).toBeUndefined();
    expect(chooseSimulation({ ...globalKind, failureRate: 1, directives: { always: 'flagged' } })).toBe('flagged');
  });

  it('groups Idempotency-Keys into jobs by the part before the first colon', () => {
    expect(jobOfIdempotencyKey('abc')).toBe('abc');
    expect(jobOfIdempotencyKey('abc:1')).toBe('abc');
    expect(jobOfIdempotencyKey('abc:2:x')).toBe('abc');
    expect(jobOfIdempotencyKey(':x')).toBe('');
  });
});
