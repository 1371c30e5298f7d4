/** Something a service opened and must close when it stops; `graceMs` is the drain's bound (a server's). */
type Close = (graceMs: number) => unknown;

/**
 * What a service opened, closed in the reverse order of opening: what was opened later may use
 * what was opened before it (a server its peer clients and pool, a consumer its server's context),
 * never the other way round, so closing last-in first-out never takes away something still in use.
 * Register each thing as soon as it is open.
 */
export class Closers {
  private readonly stack: { name: string; close: Close }[] = [];

  /** Registers `close` under `name`; it runs before everything registered earlier. */
  add(name: string, close: Close): void {
    this.stack.push({ name, close });
  }

  /**
   * Closes everything, the last registered first, each after the one before has finished. One
   * that fails does not keep the others open: closing goes on, and the failures are thrown
   * together at the end.
   */
  async close(graceMs: number): Promise<void> {
    const failures: { name: string; error: unknown }[] = [];
    for (let next = this.stack.pop(); next; next = this.stack.pop()) {
      try {
        await next.close(graceMs);
      } catch (error) {
        failures.push({ name: next.name, error });
      }
    }
    if (failures.length > 0)
      throw new AggregateError(
        failures.map((failure) => failure.error),
        `closing failed: ${failures.map((failure) => failure.name).join(', ')}`,
      );
  }

  /** Answers what `opening` resolves to; when it fails, closes what was opened so far (at once) and rethrows. */
  async opening<T>(opening: Promise<T>): Promise<T> {
    try {
      return await opening;
    } catch (error) {
      await this.close(0).catch(() => undefined);
      throw error;
    }
  }
}
