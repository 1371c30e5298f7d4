import { describe, expect, it } from 'vitest';
import type { JobRow } from '../db/job-row.js';
import { retentionTimesOf } from './job-retention-times.js';

const DAY_MS = 24 * 3_600_000;
const ended = new Date('2026-12-01T09:00:00Z');
const row = (overrides: Partial<JobRow>): JobRow =>
  ({
    job_type: 'image.stylize', // 30 days for its prompts and for its input image
    completed_at: ended,
    input_asset_id: 'a5e4b9b2-8c1d-4d4f-9a51-3c2f8e1b7d10',
    redaction_version: null,
    redacted_at: null,
    input_removed_at: null,
    input_kept_at: null,
    ...overrides,
  }) as JobRow;

describe('retention times in the user’s view', () => {
  it("an ended job's: its end plus its type's periods (image.upscale: 7 days for the image)", () => {
    expect(retentionTimesOf(row({}))).toEqual({
      inputsRedactAt: new Date(ended.getTime() + 30 * DAY_MS),
      inputsRedactedAt: undefined,
      redactionVersion: undefined,
      inputImageDeleteAt: new Date(ended.getTime() + 30 * DAY_MS),
      inputImageDeletedAt: undefined,
    });
    expect(retentionTimesOf(row({ job_type: 'image.upscale' })).inputImageDeleteAt).toEqual(new Date(ended.getTime() + 7 * DAY_MS));
  });

  it('none while the job runs, no image date without an image, none for a type no longer shipped', () => {
    expect(retentionTimesOf(row({ completed_at: null }))).toMatchObject({ inputsRedactAt: undefined, inputImageDeleteAt: undefined });
    expect(retentionTimesOf(row({ input_asset_id: null })).inputImageDeleteAt).toBeUndefined();
    expect(retentionTimesOf(row({ job_type: 'image.retired' }))).toMatchObject({
      inputsRedactAt: undefined,
      inputImageDeleteAt: undefined,
    });
  });

  it('what was done, and when; an image a post kept is looked at again a period after', () => {
    const at = new Date('2027-01-02T00:00:00Z');
    expect(retentionTimesOf(row({ redaction_version: 1, redacted_at: at, input_removed_at: at }))).toMatchObject({
      inputsRedactedAt: at,
      redactionVersion: 1,
      inputImageDeleteAt: undefined,
      inputImageDeletedAt: at,
    });
    expect(retentionTimesOf(row({ input_kept_at: at })).inputImageDeleteAt).toEqual(new Date(at.getTime() + 30 * DAY_MS));
  });
});
