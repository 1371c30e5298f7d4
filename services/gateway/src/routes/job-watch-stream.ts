import type { jobsV1 } from '@atelier/contracts';
import { isTransientError } from '@atelier/errors';
import type { ServerStreamCall } from '@atelier/grpc';

/** A WatchJob call through the typed client: it fails with domain errors. */
export type WatchCall = ServerStreamCall<jobsV1.WatchJobResponse>;

export interface ResumeOptions {
  /** Reopenings in a row without an update in between before the error is passed on. */
  maxResumes?: number;
  backoffMs?: number;
  /** Aborted when the client goes away: the open call is cancelled and the iteration ends. */
  signal: AbortSignal;
}

/**
 * The updates of one job across as many WatchJob calls as it takes: a stream that ends with a
 * transient error (isTransientError: jobs restarting, a connection drained at its maximum age so
 * that clients spread over new pods) is reopened after the last version seen, so a user's event
 * stream survives it unnoticed.
 */
export async function* watchJobResuming(
  open: (afterVersion: number) => WatchCall,
  afterVersion: number,
  options: ResumeOptions,
): AsyncGenerator<jobsV1.Job> {
  const maxResumes = options.maxResumes ?? 5;
  let lastVersion = afterVersion;
  let resumes = 0;
  while (!options.signal.aborted) {
    const call = open(lastVersion);
    const cancel = () => call.cancel();
    options.signal.addEventListener('abort', cancel, { once: true });
    try {
      for await (const update of call) {
        resumes = 0;
        lastVersion = Math.max(lastVersion, update.job!.version);
        yield update.job!;
      }
      return;
    } catch (error) {
      if (options.signal.aborted) return;
      if (!isTransientError(error) || resumes >= maxResumes) throw error;
      resumes += 1;
      await new Promise((resolve) => setTimeout(resolve, (options.backoffMs ?? 200) * resumes));
    } finally {
      options.signal.removeEventListener('abort', cancel);
      call.cancel();
    }
  }
}
