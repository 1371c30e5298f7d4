import type { OutputRules } from './output-rules.js';

/**
 * What a job type's name looks like (`image.stylize`): the jobs registry refuses a definition
 * that breaks it, the gateway and the catalog refuse a request that does, and the tables' CHECKs
 * (written out in their migrations) are held to it by the entities' schema check.
 */
export const JOB_TYPE_PATTERN_SOURCE = '^[a-z][a-z0-9_.]{1,63}$';
export const JOB_TYPE_PATTERN = new RegExp(JOB_TYPE_PATTERN_SOURCE);

/** The kinds of executor a worker has: `image` calls the vendor, `canary` does nothing at once. */
export const JOB_EXECUTORS = ['image', 'canary'] as const;
export type JobExecutorKind = (typeof JOB_EXECUTORS)[number];

/**
 * What every process must agree on about a job type. The jobs service's definition adds how it is
 * run (queue, timeouts, retries, input rules); the gateway reads `operatorOnly`; the worker picks
 * the executor.
 */
export interface JobTypeDescription {
  /** JOB_TYPE_PATTERN, e.g. `image.stylize`: the job_type of requests, rows and catalog models. */
  readonly jobType: string;
  /** Only admins may create it (the gateway refuses everyone else with 403): the operators' probes. */
  readonly operatorOnly: boolean;
  readonly executor: JobExecutorKind;
  /** What its output must be (output-rules.ts); absent for a type that produces none. */
  readonly output?: OutputRules;
}

/** The images users get: any of the three types, each side within a factor of 2 of what was asked, never one flat colour. */
const IMAGE_OUTPUT = {
  kind: 'image',
  allowedTypes: ['image/png', 'image/jpeg', 'image/webp'],
  sizeTolerance: 2,
  notBlank: true,
} as const;

/** Every job type this build ships. Adding one is a line here, a definition in jobs and, for a new kind, an executor in the worker. */
export const JOB_TYPES = [
  // A user waits for a stylize: one new try after a refused output, then the error.
  { jobType: 'image.stylize', operatorOnly: false, executor: 'image', output: { ...IMAGE_OUTPUT, validationRetries: 1 } },
  { jobType: 'image.upscale', operatorOnly: false, executor: 'image', output: { ...IMAGE_OUTPUT, validationRetries: 2 } },
  { jobType: 'system.canary', operatorOnly: true, executor: 'canary' },
] as const satisfies readonly JobTypeDescription[];

export type JobTypeName = (typeof JOB_TYPES)[number]['jobType'];

const byName: ReadonlyMap<string, JobTypeDescription> = new Map(JOB_TYPES.map((type) => [type.jobType, type]));

/** The description of a job type a request or a row names, or undefined when this build does not ship it. */
export function findJobType(jobType: string): JobTypeDescription | undefined {
  return byName.get(jobType);
}

/** The description of a shipped job type (for code that declares one: the name is checked at compile time). */
export function describedJobType(jobType: JobTypeName): JobTypeDescription {
  return byName.get(jobType)!;
}

/** The job types whose jobs are users' creations (not operator-only): the ones the product events follow. */
export const CREATION_JOB_TYPES: readonly string[] = JOB_TYPES.filter((type) => !type.operatorOnly).map((type) => type.jobType);

/** Whether only operators may create jobs of this type. A type this build does not ship is not; the jobs service refuses it as unknown. */
export function isOperatorOnlyJobType(jobType: string): boolean {
  return findJobType(jobType)?.operatorOnly ?? false;
}
