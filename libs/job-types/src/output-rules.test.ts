import { describe, expect, it } from 'vitest';
import { JOB_TYPES, outputRulesProblem, retrySeed, type OutputRules } from './index.js';

const valid: OutputRules = { kind: 'image', allowedTypes: ['image/png'], sizeTolerance: 2, notBlank: true, validationRetries: 2 };

describe('output rules - declared with the type', () => {
  it('gives every type the image executor runs usable output rules, and the canary none', () => {
    for (const type of JOB_TYPES) {
      if (type.executor === 'image') expect(type.output && outputRulesProblem(type.output)).toBeUndefined();
      if (type.executor === 'image') expect(type.output).toBeDefined();
      else expect('output' in type).toBe(false);
    }
  });

  it.each([
    [{ allowedTypes: [] }, /allowedTypes must name/],
    [{ allowedTypes: ['image/gif'] }, /"image\/gif" is not one of/],
    [{ sizeTolerance: 0.5 }, /sizeTolerance must be a factor in 1\.\.16/],
    [{ sizeTolerance: Number.NaN }, /sizeTolerance/],
    [{ validationRetries: -1 }, /validationRetries must be a whole number/],
    [{ validationRetries: 1.5 }, /validationRetries/],
  ])('refuses %j', (change, problem) => {
    expect(outputRulesProblem({ ...valid, ...change } as OutputRules)).toMatch(problem);
  });
});

describe('output rules - the seed of a new prediction', () => {
  const id = '0a1b2c3d-0000-4000-8000-000000000000';

  it('leaves the first prediction as the job asked', () => {
    expect(retrySeed({ id, seed: 42 }, 0)).toBeUndefined();
  });

  it('moves the job seed by a fixed step per abandoned prediction, within the vendor range', () => {
    expect(retrySeed({ id, seed: 42 }, 1)).toBe(42 + 7919);
    expect(retrySeed({ id, seed: 42 }, 2)).toBe(42 + 2 * 7919);
    expect(retrySeed({ id, seed: 2 ** 31 - 1 }, 1)).toBe(7918);
  });

  it('starts from the job id without a seed, and answers the same for the same generation', () => {
    expect(retrySeed({ id, seed: undefined }, 1)).toBe(0x0a1b2c3d + 7919);
    expect(retrySeed({ id, seed: undefined }, 3)).toBe(retrySeed({ id, seed: undefined }, 3));
    expect(retrySeed({ id, seed: undefined }, 3)).not.toBe(retrySeed({ id, seed: undefined }, 2));
  });
});
