export {
  CREATION_JOB_TYPES,
  JOB_EXECUTORS,
  JOB_TYPE_PATTERN,
  JOB_TYPE_PATTERN_SOURCE,
  JOB_TYPES,
  describedJobType,
  findJobType,
  isOperatorOnlyJobType,
  type JobExecutorKind,
  type JobTypeDescription,
  type JobTypeName,
} from './job-types.js';
export { START_DEADLINE_EXCEEDED, START_WITHIN_SECONDS } from './start-deadline.js';
export { JOB_ERROR_REASONS, jobErrorReasonOf, type JobErrorReason } from './job-error-reasons.js';
export { PROVIDER_CODES, isKnownProviderCode, type ProviderCode } from './providers.js';
export {
  BLANK_STDEV,
  OUTPUT_VALIDATION_CODES,
  outputRulesProblem,
  retrySeed,
  type ImageOutputRules,
  type OutputRejection,
  type OutputRules,
} from './output-rules.js';
