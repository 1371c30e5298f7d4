// add→start latency of one job at a time, taken the same way for every peer: the clock starts
// (process.hrtime) just before the add is sent and stops when the peer's task starts, both in
// this process; the next job is added only once the previous one has started.

export class StartLatencyProbe {
  private readonly addedAt = new Map<number, [number, number]>();
  private readonly latencies = new Map<number, number>();
  private readonly waiting = new Map<number, () => void>();

  /** For the peer's task: job `id` has started. */
  started(id: number): void {
    const addedAt = this.addedAt.get(id);
    if (!addedAt) return;
    const [seconds, nanoseconds] = process.hrtime(addedAt);
    this.latencies.set(id, seconds * 1e3 + nanoseconds / 1e6);
    this.waiting.get(id)?.();
  }

  /**
   * Adds jobs -warmUp … samples-1 one at a time (the warm-up ones bring connections, statements
   * and code up and are not counted); answers the measured ones' latencies in ms.
   */
  async measure(add: (id: number) => Promise<unknown>, samples: number, warmUp: number): Promise<number[]> {
    const measured: number[] = [];
    for (let id = -warmUp; id < samples; id += 1) {
      const started = new Promise<void>((resolve) => this.waiting.set(id, resolve));
      this.addedAt.set(id, process.hrtime());
      await add(id);
      await started;
      if (id >= 0) measured.push(this.latencies.get(id)!);
    }
    return measured;
  }
}
