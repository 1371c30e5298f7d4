import { InvalidArgumentError } from '@atelier/errors';

/** The longest window a spend read or a recompute covers. */
export const MAX_USAGE_WINDOW_DAYS = 366;

/** [from, to): both required, from before to, at most MAX_USAGE_WINDOW_DAYS long. */
export function requireUsageWindow(from: Date | undefined, to: Date | undefined): { from: Date; to: Date } {
  if (!from || Number.isNaN(from.getTime())) throw new InvalidArgumentError('from', 'is required');
  if (!to || Number.isNaN(to.getTime())) throw new InvalidArgumentError('to', 'is required');
  if (from.getTime() >= to.getTime()) throw new InvalidArgumentError('to', 'must be after from');
  if (to.getTime() - from.getTime() > MAX_USAGE_WINDOW_DAYS * 86_400_000) {
    throw new InvalidArgumentError('to', `must be at most ${MAX_USAGE_WINDOW_DAYS} days after from`);
  }
  return { from, to };
}
