import { InvalidArgumentError } from '@atelier/errors';

/** A listing's page_size: 1–100; 0 (unset) means the default of 20. */
export function pageSize(requested: number, field = 'page_size'): number {
  if (requested === 0) return 20;
  if (!Number.isInteger(requested) || requested < 1 || requested > 100) throw new InvalidArgumentError(field, 'must be between 1 and 100');
  return requested;
}
