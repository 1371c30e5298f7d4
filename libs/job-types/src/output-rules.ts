/**
 * What a job type's output must be for the worker to accept it, declared with the type (job-types.ts)
 * so the worker checks it and the jobs service bounds its retries by it. An output that breaks a
 * rule is a VALIDATION_* failure: the prediction is given up and the next attempt asks the vendor
 * again with another seed (retrySeed), at most `validationRetries` times.
 */
export interface ImageOutputRules {
  readonly kind: 'image';
  /** The content types, read from the bytes, an output may be. */
  readonly allowedTypes: readonly ('image/png' | 'image/jpeg' | 'image/webp')[];
  /**
   * When the job asked for a width or height: each side of the output within this factor of it
   * (2: from half to double). Without one, only the platform's absolute sides (64–8192 px) apply.
   */
  readonly sizeTolerance: number;
  /** Refuse an image of one flat colour: every channel's standard deviation below BLANK_STDEV. */
  readonly notBlank: boolean;
  /** Attempts after a refused output, at most (beyond it the job fails although attempts may remain). */
  readonly validationRetries: number;
}

export type OutputRules = ImageOutputRules;

/** The output codes the worker reports (docs/services.md lists them with their meaning). */
export const OUTPUT_VALIDATION_CODES = {
  undecodable: 'VALIDATION_OUTPUT_UNDECODABLE',
  type: 'VALIDATION_OUTPUT_TYPE',
  size: 'VALIDATION_OUTPUT_SIZE',
  blank: 'VALIDATION_OUTPUT_BLANK',
} as const;
export type OutputRejection = keyof typeof OUTPUT_VALIDATION_CODES;

/** A channel whose pixels vary less than this (0–255 scale) is flat: no vendor draws a picture that flat on purpose. */
export const BLANK_STDEV = 1;

const KNOWN_TYPES: readonly string[] = ['image/png', 'image/jpeg', 'image/webp'];

/** Why output rules are unusable, or undefined when they are fine (checked at start-up by jobs and the worker). */
export function outputRulesProblem(rules: OutputRules): string | undefined {
  if (rules.kind !== 'image') return `unknown output kind "${String(rules.kind)}"`;
  if (rules.allowedTypes.length === 0) return 'allowedTypes must name at least one content type';
  const unknown = rules.allowedTypes.find((type) => !KNOWN_TYPES.includes(type));
  if (unknown) return `allowedTypes: "${unknown}" is not one of ${KNOWN_TYPES.join(', ')}`;
  if (!Number.isFinite(rules.sizeTolerance) || rules.sizeTolerance < 1 || rules.sizeTolerance > 16)
    return `sizeTolerance must be a factor in 1..16, got ${rules.sizeTolerance}`;
  if (!Number.isInteger(rules.validationRetries) || rules.validationRetries < 0 || rules.validationRetries > 10)
    return `validationRetries must be a whole number in 0..10, got ${rules.validationRetries}`;
  return undefined;
}

/** The seeds a vendor takes: 0 to 2^31 − 1, as image.stylize's `seed` parameter. */
const SEED_RANGE = 2 ** 31;
/** A prime step, so successive retries land far apart in the seed space. */
const SEED_STEP = 7_919;

/**
 * The seed a job's prediction asks with once `abandoned` earlier predictions of it were given up
 * (provider_request_generation): none for the first (the job's own parameters, as created); for
 * the n-th new one, (seed + n × 7919) mod 2^31, where seed is the job's own or, without one, the
 * first 31 bits of its id. A function of the generation, so a crashed attempt's resubmission
 * under the same idempotency key asks exactly what its first POST asked.
 */
export function retrySeed(job: { id: string; seed: number | undefined }, abandoned: number): number | undefined {
  if (abandoned <= 0) return undefined;
  const base = job.seed ?? (Number.parseInt(job.id.replaceAll('-', '').slice(0, 8), 16) || 0) % SEED_RANGE;
  return (base + abandoned * SEED_STEP) % SEED_RANGE;
}
