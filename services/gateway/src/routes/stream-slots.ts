/**
 * Live streams per user on this replica, with a ceiling: one user cannot hold more than `max`
 * WatchJob streams (each one a gRPC stream and a job re-read at the jobs service) at a time.
 */
export class StreamSlots {
  private readonly open = new Map<string, number>();

  constructor(private readonly max: number) {}

  /** A release function (call it once, when the stream ends), or undefined when the user is at the ceiling. */
  acquire(userId: string): (() => void) | undefined {
    const held = this.open.get(userId) ?? 0;
    if (held >= this.max) return undefined;
    this.open.set(userId, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.open.get(userId) ?? 1) - 1;
      if (left <= 0) this.open.delete(userId);
      else this.open.set(userId, left);
    };
  }

  held(userId: string): number {
    return this.open.get(userId) ?? 0;
  }
}
