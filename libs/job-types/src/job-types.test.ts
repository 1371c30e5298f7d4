import { describe, expect, it } from 'vitest';
import { JOB_EXECUTORS, JOB_TYPES, describedJobType, findJobType, isOperatorOnlyJobType } from './index.js';

describe('job types - the shipped list', () => {
  it('names each type once, in the job_type spelling', () => {
    const names = JOB_TYPES.map((type) => type.jobType);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[a-z][a-z0-9_.]{1,63}$/);
  });

  it('runs every type on a known executor, and every executor runs some type', () => {
    for (const type of JOB_TYPES) expect(JOB_EXECUTORS).toContain(type.executor);
    for (const executor of JOB_EXECUTORS) expect(JOB_TYPES.some((type) => type.executor === executor)).toBe(true);
  });

  it('finds a shipped type by name, and nothing for another', () => {
    expect(describedJobType('image.stylize')).toEqual({ jobType: 'image.stylize', operatorOnly: false, executor: 'image' });
    expect(findJobType('system.canary')).toMatchObject({ executor: 'canary' });
    expect(findJobType('image.explode')).toBeUndefined();
  });
});

describe('job types - operator-only', () => {
  it('keeps the canary for operators and the image types for everyone', () => {
    expect(isOperatorOnlyJobType('system.canary')).toBe(true);
    expect(isOperatorOnlyJobType('image.stylize')).toBe(false);
    expect(isOperatorOnlyJobType('image.upscale')).toBe(false);
  });

  it('leaves a type this build does not ship to the jobs service to refuse as unknown', () => {
    expect(isOperatorOnlyJobType('image.explode')).toBe(false);
  });
});
