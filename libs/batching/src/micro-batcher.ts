/**
 * Coalesces concurrent calls into batches: a call made while fewer than maxConcurrent batches
 * are running goes out at once (in the same tick as its neighbours), so a lone call waits for
 * nothing; calls made while the database is busy queue up and leave together as the next batch.
 * Under load one statement then does the work of many round trips (group commit, in the app).
 */
export class MicroBatcher<Request, Result> {
  private readonly queue: { request: Request; resolve: (result: Result) => void; reject: (error: unknown) => void }[] = [];
  private running = 0;
  private scheduled = false;

  constructor(
    /** Must answer one result per request, in order. */
    private readonly runBatch: (requests: Request[]) => Promise<Result[]>,
    private readonly options: { maxBatch: number; maxConcurrent: number },
  ) {}

  submit(request: Request): Promise<Result> {
    return new Promise((resolve, reject) => {
      this.queue.push({ request, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        queueMicrotask(() => {
          this.scheduled = false;
          this.flush();
        });
      }
    });
  }

  private flush(): void {
    while (this.running < this.options.maxConcurrent && this.queue.length > 0) {
      const batch = this.queue.splice(0, this.options.maxBatch);
      this.running += 1;
      this.runBatch(batch.map((entry) => entry.request))
        .then(
          (results): void => batch.forEach((entry, i) => entry.resolve(results[i]!)),
          async (error: unknown): Promise<void> => {
            // One bad request must not fail its neighbours: retry them one by one.
            if (batch.length === 1) return batch[0]!.reject(error);
            await Promise.all(
              batch.map((entry) =>
                this.runBatch([entry.request]).then(
                  (results) => entry.resolve(results[0]!),
                  (alone: unknown) => entry.reject(alone),
                ),
              ),
            );
          },
        )
        .finally(() => {
          this.running -= 1;
          this.flush();
        });
    }
  }
}
