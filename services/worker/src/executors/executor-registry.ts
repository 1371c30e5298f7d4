import { JOB_TYPES, outputRulesProblem, type JobExecutorKind, type JobTypeDescription } from '@atelier/job-types';
import type { JobExecutor } from './job-executor.js';

/**
 * The executor of every shipped job type, by jobType, as @atelier/job-types assigns them. It
 * takes exactly one executor per kind (a missing or an unknown kind does not compile), so no job
 * type is left without one and no executor is kept for a type that is not shipped.
 */
export function executorsByJobType(
  executors: Readonly<Record<JobExecutorKind, JobExecutor>>,
  types: readonly JobTypeDescription[] = JOB_TYPES,
): ReadonlyMap<string, JobExecutor> {
  for (const type of types) {
    const problem = executorProblem(type);
    if (problem) throw new Error(`job type ${type.jobType}: ${problem}`);
  }
  return new Map(types.map((type) => [type.jobType, executors[type.executor]]));
}

/** The image executor validates every output by its type's rules: a type without usable ones must not start a worker. */
function executorProblem(type: JobTypeDescription): string | undefined {
  if (type.executor !== 'image') return undefined;
  if (!type.output) return 'the image executor needs output rules (@atelier/job-types output)';
  const problem = outputRulesProblem(type.output);
  return problem && `output rules: ${problem}`;
}
