import { InvalidArgumentError } from '@atelier/errors';

/** Only these parameter names are accepted; anything else is a typo the user should hear about. */
export function requireOnlyParameters(parameters: Record<string, unknown>, allowed: readonly string[]): void {
  for (const name of Object.keys(parameters)) {
    if (!allowed.includes(name)) {
      throw new InvalidArgumentError(
        `parameters.${name}`,
        allowed.length ? `is not a parameter of this job type (allowed: ${allowed.join(', ')})` : 'this job type takes no parameters',
      );
    }
  }
}

export function requireNumberParameter(parameters: Record<string, unknown>, name: string, min: number, max: number): void {
  const value = parameters[name];
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    throw new InvalidArgumentError(`parameters.${name}`, `must be a number between ${min} and ${max}`);
  }
}

export function requireOneOfParameter(parameters: Record<string, unknown>, name: string, values: readonly unknown[]): void {
  const value = parameters[name];
  if (value === undefined) return;
  if (!values.includes(value)) throw new InvalidArgumentError(`parameters.${name}`, `must be one of ${values.join(', ')}`);
}
