/**
 * Settles with `work`, or rejects with `onTimeout()` after `ms`. The work itself is not
 * cancelled (callers close what it opened); this only bounds how long an operator waits.
 */
export async function withDeadline<T>(work: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}
