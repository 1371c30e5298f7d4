import type { jobsExecutionV1 } from '@atelier/contracts';

/** What an executor produced: the bytes of the output image, when the job type has one. */
export interface ExecutionResult {
  output?: { bytes: Buffer; contentType: string };
}

/** What an executor may do while it runs one attempt. */
export interface ExecutionContext {
  claimed: jobsExecutionV1.ClaimedJob;
  /** Aborts on the attempt's timeout, on a cancel and on a lost lease (the reason says which). */
  signal: AbortSignal;
  /** 0–100, as the work advances: sent to the jobs service when it changes, at most once a second. */
  reportProgress(progress: number): void;
  /** Durably remembers the provider's request id (L2) before polling it. */
  recordProviderRequest(providerRequestId: string): Promise<void>;
  /**
   * Called with the provider request once known, so a cancel can reach the provider: `submitted`
   * when this attempt created it (a charge), not when it resumes the one an earlier attempt recorded.
   */
  onProviderRequest(providerRequestId: string, submitted: boolean): void;
}

/** Runs one attempt of one job type. Failures are thrown as JobFailure. */
export interface JobExecutor {
  execute(context: ExecutionContext): Promise<ExecutionResult>;
}
