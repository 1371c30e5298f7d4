import type { JobDefinition } from '../definitions/job-definition.js';
import type { RetentionPeriods } from '../db/redaction-sql.js';

/** Each shipped job type's retention (its definition's `retention`), as the retention statements read it. */
export interface JobRetentionPeriods {
  redactInputs: RetentionPeriods;
  deleteInputImage: RetentionPeriods;
}

export function retentionPeriodsOf(definitions: readonly JobDefinition[]): JobRetentionPeriods {
  const jobTypes = definitions.map((definition) => definition.jobType);
  return {
    redactInputs: { jobTypes, days: definitions.map((definition) => definition.retention.redactInputsAfterDays) },
    deleteInputImage: { jobTypes, days: definitions.map((definition) => definition.retention.deleteInputImageAfterDays) },
  };
}
