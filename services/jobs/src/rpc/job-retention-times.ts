import type { jobsV1 } from '@atelier/contracts';
import type { JobRow } from '../db/job-row.js';
import { SHIPPED_DEFINITIONS } from '../definitions/index.js';
import type { JobRetention } from '../definitions/job-definition.js';

const DAY_MS = 24 * 3_600_000;
const RETENTION_BY_TYPE: ReadonlyMap<string, JobRetention> = new Map(SHIPPED_DEFINITIONS.map((d) => [d.jobType, d.retention]));

type RetentionTimes = Pick<
  jobsV1.Job,
  'inputsRedactAt' | 'inputsRedactedAt' | 'redactionVersion' | 'inputImageDeleteAt' | 'inputImageDeletedAt'
>;

const daysAfter = (from: Date, days: number) => new Date(from.getTime() + days * DAY_MS);

/**
 * When what the user gave a job goes (docs/retention.md), as they see it: for an ended job, its
 * end plus its type's periods; once done, when it was done. The image's date is the earliest: a
 * newer job using the same image keeps it longer, and one found in a post is looked at again a
 * period after (input_kept_at). A job type no longer shipped has no dates: retention leaves it.
 */
export function retentionTimesOf(row: JobRow): RetentionTimes {
  const retention = RETENTION_BY_TYPE.get(row.job_type);
  const ended = row.completed_at;
  const redactedAt = row.redacted_at ?? undefined;
  const imageDeletedAt = row.input_removed_at ?? undefined;
  const imageFrom = ended && row.input_kept_at && row.input_kept_at > ended ? row.input_kept_at : ended;
  return {
    inputsRedactAt: ended && retention ? daysAfter(ended, retention.redactInputsAfterDays) : undefined,
    inputsRedactedAt: redactedAt,
    redactionVersion: row.redaction_version ?? undefined,
    inputImageDeleteAt:
      imageFrom && retention && row.input_asset_id && !imageDeletedAt
        ? daysAfter(imageFrom, retention.deleteInputImageAfterDays)
        : undefined,
    inputImageDeletedAt: imageDeletedAt,
  };
}
