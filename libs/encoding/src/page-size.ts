import { InvalidArgumentError } from '@atelier/errors';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '@atelier/validation';

/** A listing's page_size: 1–MAX_PAGE_SIZE; 0 (unset) means DEFAULT_PAGE_SIZE. */
export function pageSize(requested: number, field = 'page_size'): number {
  if (requested === 0) return DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(requested) || requested < 1 || requested > MAX_PAGE_SIZE) {
    throw new InvalidArgumentError(field, `must be between 1 and ${MAX_PAGE_SIZE}`);
  }
  return requested;
}
