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
