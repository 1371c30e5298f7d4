import { describe, expect, it } from 'vitest';
import {
  JOB_ERROR_REASONS,
  JOB_EXECUTORS,
  JOB_TYPES,
  describedJobType,
  findJobType,
  isOperatorOnlyJobType,
  jobErrorReasonOf,
} from './index.js';

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
    expect(describedJobType('image.stylize')).toMatchObject({ jobType: 'image.stylize', operatorOnly: false, executor: 'image' });
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

describe('job error reasons - from a job error code', () => {
  it('names the family of a worker code, a terminal reason by its code, and a queued job as a scheduled retry', () => {
    expect(jobErrorReasonOf('PROVIDER_RATE_LIMITED', 'failed')).toBe('PROVIDER');
    expect(jobErrorReasonOf('CONTENT_SAFETY_FLAGGED', 'failed')).toBe('CONTENT_SAFETY');
    expect(jobErrorReasonOf('TIMEOUT', 'failed')).toBe('TIMEOUT');
    expect(jobErrorReasonOf('START_DEADLINE_EXCEEDED', 'cancelled')).toBe('START_DEADLINE_EXCEEDED');
    expect(jobErrorReasonOf('LEASE_EXPIRED', 'failed')).toBe('LEASE_EXPIRED');
    expect(jobErrorReasonOf('PROVIDER_UNAVAILABLE', 'queued')).toBe('RETRY_SCHEDULED');
    expect(jobErrorReasonOf('SOMETHING_NEW', 'failed')).toBe('INTERNAL');
    for (const reason of ['PROVIDER', 'START_DEADLINE_EXCEEDED', 'RETRY_SCHEDULED'] as const) expect(JOB_ERROR_REASONS).toContain(reason);
  });
});
