import { describe, expect, it } from 'vitest';
import { JOB_STATUS_WORDS, TERMINAL_JOB_STATUSES, commonV1, enumWords, isTerminalJobStatus, jobsV1 } from './index.js';

const { JobStatus } = jobsV1;

describe('contracts - enum words', () => {
  it("names a generated enum's values by their lower-case names, in declaration order, without UNSPECIFIED and UNRECOGNIZED", () => {
    expect(JOB_STATUS_WORDS.words).toEqual(['queued', 'running', 'succeeded', 'failed', 'cancelled']);
    expect(enumWords(commonV1.MediaKind).words).toEqual(['image', 'video']);
  });

  it('turns values into words and back', () => {
    expect(JOB_STATUS_WORDS.wordOf(JobStatus.RUNNING)).toBe('running');
    expect(JOB_STATUS_WORDS.wordOf(JobStatus.UNSPECIFIED)).toBeUndefined();
    expect(JOB_STATUS_WORDS.wordOf(JobStatus.UNRECOGNIZED)).toBeUndefined();
    expect(JOB_STATUS_WORDS.fromWord('cancelled')).toBe(JobStatus.CANCELLED);
    expect(JOB_STATUS_WORDS.fromWord('CANCELLED')).toBeUndefined();
    expect(JOB_STATUS_WORDS.fromWord('unspecified')).toBeUndefined();
  });
});

describe('contracts - job statuses', () => {
  it('knows the terminal statuses by value and by word', () => {
    expect([...TERMINAL_JOB_STATUSES].map((status) => JOB_STATUS_WORDS.wordOf(status))).toEqual(['succeeded', 'failed', 'cancelled']);
    expect([JobStatus.SUCCEEDED, 'failed', 'cancelled'].every(isTerminalJobStatus)).toBe(true);
    expect([JobStatus.QUEUED, 'running', JobStatus.UNSPECIFIED, 'done', ''].some(isTerminalJobStatus)).toBe(false);
  });
});
