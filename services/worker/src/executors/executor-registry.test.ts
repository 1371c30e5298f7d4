import { describe, expect, it } from 'vitest';
import { JOB_EXECUTORS, JOB_TYPES, type JobExecutorKind } from '@atelier/job-types';
import { executorsByJobType } from './executor-registry.js';
import type { JobExecutor } from './job-executor.js';

const stub = (): JobExecutor => ({ execute: async () => ({}) });
const stubs = Object.fromEntries(JOB_EXECUTORS.map((kind) => [kind, stub()])) as Record<JobExecutorKind, JobExecutor>;

describe('executor registry - built from @atelier/job-types', () => {
  it('has an executor for every job type, the one its kind names', () => {
    const executors = executorsByJobType(stubs);
    expect([...executors.keys()].sort()).toEqual(JOB_TYPES.map((type) => type.jobType).sort());
    for (const type of JOB_TYPES) expect(executors.get(type.jobType)).toBe(stubs[type.executor]);
  });

  it('has no executor that runs no job type', () => {
    const used = new Set(executorsByJobType(stubs).values());
    for (const kind of JOB_EXECUTORS) expect(used.has(stubs[kind]), `the ${kind} executor runs no job type`).toBe(true);
  });

  it('runs the canary on the canary executor and the image types on the image executor', () => {
    const executors = executorsByJobType(stubs);
    expect(executors.get('system.canary')).toBe(stubs.canary);
    expect(executors.get('image.stylize')).toBe(stubs.image);
    expect(executors.get('image.upscale')).toBe(stubs.image);
  });
});

describe('executor registry - output rules at start-up', () => {
  const rules = { kind: 'image', allowedTypes: ['image/png'], sizeTolerance: 2, notBlank: true, validationRetries: 2 } as const;

  it('refuses an image type without output rules, or with unusable ones, before any job runs', () => {
    expect(() => executorsByJobType(stubs, [{ jobType: 'image.new', operatorOnly: false, executor: 'image' }])).toThrow(
      'job type image.new: the image executor needs output rules',
    );
    expect(() =>
      executorsByJobType(stubs, [{ jobType: 'image.new', operatorOnly: false, executor: 'image', output: { ...rules, sizeTolerance: 0 } }]),
    ).toThrow('job type image.new: output rules: sizeTolerance must be a factor in 1..16, got 0');
  });

  it('takes an image type with usable rules, and a canary with none', () => {
    const types = [
      { jobType: 'image.new', operatorOnly: false, executor: 'image', output: rules },
      { jobType: 'system.new', operatorOnly: true, executor: 'canary' },
    ] as const;
    expect([...executorsByJobType(stubs, types).keys()]).toEqual(['image.new', 'system.new']);
  });
});
