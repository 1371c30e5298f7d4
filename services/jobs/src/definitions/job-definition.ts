import { JOB_TYPE_PATTERN, outputRulesProblem } from '@atelier/job-types';
import { findJobType, type JobTypeDescription } from '@atelier/job-types';
import type { BackoffOptions } from '@atelier/lifecycle';
import type { JobQueueName } from '@atelier/nats';

/** The command a user submits, after field validation (ids normalised, text trimmed). */
export interface JobCommand {
  jobType: string;
  petId: string | null;
  modelId: string | null;
  styleId: string | null;
  inputAssetId: string | null;
  prompt: string;
  negativePrompt: string;
  width: number | null;
  height: number | null;
  parameters: Record<string, unknown>;
  /**
   * How long the job may wait for a worker (domain/start-deadline.ts); absent: no limit. Part of
   * the hashed command (a key replayed with another deadline is another request); absent, it
   * leaves the hash of a command as it was before deadlines existed.
   */
  startWithinSeconds?: number;
  /** A vendor key of the user's own (docs/credentials.md); absent: the platform's. Hashed only when present, as the deadline. */
  credentialId?: string;
}

/** Retention of what a user gave a job, counted in whole days from the job's end (completed_at). */
export interface JobRetention {
  /** The prompt, negative prompt and effective inputs are redacted (db/redaction-sql.ts, version 1). */
  redactInputsAfterDays: number;
  /** The input image is deleted, unless a post or a job that ended later (or has not) uses it. */
  deleteInputImageAfterDays: number;
}

/** Retention periods a definition may declare: a day at least (a job's own replays), ten years at most. */
export const RETENTION_DAYS_RANGE = { min: 1, max: 3650 } as const;

/**
 * Everything the engine needs to know about one job type. Definitions are declared in code,
 * validated at start-up, and looked up by jobType: there is no switch over job types anywhere.
 * Name and operatorOnly come from the platform's list (@atelier/job-types), which the gateway
 * and the worker read too.
 */
export interface JobDefinition extends Pick<JobTypeDescription, 'operatorOnly' | 'output'> {
  /** JOB_TYPE_PATTERN, e.g. `image.stylize`; one of @atelier/job-types' JOB_TYPES. */
  jobType: string;
  label: string;
  queue: JobQueueName;
  /** Time budget of one attempt, 1 s – 600 s. */
  timeoutMs: number;
  /** Attempts in total, the first included (1–20). */
  maxAttempts: number;
  /** Between attempts: baseMs · 2^(attempt-1), capped at maxMs, ±20 % jitter (backoffDelayMs). */
  retryBackoff: BackoffOptions;
  /** Whether an attempt that ran out of time is retried (while attempts remain). */
  retryOnTimeout: boolean;
  cancellable: boolean;
  /** Ask the worker to run the content-safety check on the output. */
  contentSafety: boolean;
  /** A model from the catalog is required (its job_type must equal this definition's). */
  usesModel: boolean;
  /** A style from the catalog: required, optional or not allowed. */
  style: 'required' | 'optional' | 'none';
  /** An input asset of the user (purpose ai_input) is required. */
  usesInputAsset: boolean;
  /** Succeeded jobs of this type carry an output asset (ai_output), checked by `output` (the rules of @atelier/job-types). */
  producesOutput: boolean;
  /** Counts toward the user's quotas (operator probes do not). */
  countsTowardQuota: boolean;
  /**
   * The parameter names a user may set (validateInput refuses any other). The model's
   * default_parameters may hold more; those always apply (domain/effective-parameters.ts).
   */
  userParameters: readonly string[];
  /** How long what the user gave outlives the job's end (docs/retention.md holds the table, checked against this). */
  retention: JobRetention;
  /** Checks the type-specific parts of a command (parameters, prompt rules); throws InvalidArgumentError. */
  validateInput(command: JobCommand): void;
}

/** Why a definition is unusable, or undefined when it is fine. */
export function definitionProblem(definition: JobDefinition): string | undefined {
  const d = definition;
  if (!JOB_TYPE_PATTERN.test(d.jobType)) return `jobType "${d.jobType}" must match ${JOB_TYPE_PATTERN}`;
  const described = findJobType(d.jobType);
  if (!described) return `${d.jobType}: not a job type of @atelier/job-types (the gateway and the worker would not know it)`;
  if (d.operatorOnly !== described.operatorOnly)
    return `${d.jobType}: operatorOnly must be ${described.operatorOnly}, as @atelier/job-types says`;
  if (!d.label.trim()) return `${d.jobType}: label must not be empty`;
  if (d.queue !== 'interactive' && d.queue !== 'background') return `${d.jobType}: unknown queue "${String(d.queue)}"`;
  if (!Number.isInteger(d.timeoutMs) || d.timeoutMs < 1_000 || d.timeoutMs > 600_000) {
    return `${d.jobType}: timeoutMs must be between 1000 and 600000, got ${d.timeoutMs}`;
  }
  if (!Number.isInteger(d.maxAttempts) || d.maxAttempts < 1 || d.maxAttempts > 20) return `${d.jobType}: maxAttempts must be in 1..20`;
  if (d.retryBackoff.baseMs < 0 || d.retryBackoff.maxMs < d.retryBackoff.baseMs) {
    return `${d.jobType}: retryBackoff needs 0 <= baseMs <= maxMs`;
  }
  for (const [name, days] of Object.entries(d.retention)) {
    if (!Number.isInteger(days) || days < RETENTION_DAYS_RANGE.min || days > RETENTION_DAYS_RANGE.max) {
      return `${d.jobType}: retention.${name} must be a whole number of days in ${RETENTION_DAYS_RANGE.min}..${RETENTION_DAYS_RANGE.max}, got ${days}`;
    }
  }
  if (d.producesOutput && !d.usesModel) return `${d.jobType}: a job type that produces output needs a model (and so a provider)`;
  if (d.output !== described.output) return `${d.jobType}: output must be the rules @atelier/job-types declares for it`;
  if (d.producesOutput !== Boolean(d.output)) return `${d.jobType}: a job type has output rules exactly when it produces output`;
  const rulesProblem = d.output && outputRulesProblem(d.output);
  if (rulesProblem) return `${d.jobType}: output rules: ${rulesProblem}`;
  if (d.output && d.output.validationRetries >= d.maxAttempts)
    return `${d.jobType}: output validationRetries (${d.output.validationRetries}) must leave room within maxAttempts (${d.maxAttempts})`;
  return undefined;
}
