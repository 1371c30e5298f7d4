import type { jobsCredentialsV1 } from '@atelier/contracts';
import type { PromiseClient } from '@atelier/grpc';

/** A user's key as jobs hands it to the worker entitled to it: held in memory for the vendor's calls, never stored nor logged. */
export interface UserKey {
  credentialId: string;
  providerCode: string;
  apiKey: string;
  label: string;
  keyHint: string;
}

/**
 * The worker's side of ProviderCredentialsService: a job's user key, for the attempt that holds
 * its lease or to cancel its recorded prediction; and the report of a key the vendor refused.
 * Refusals are jobs' AppErrors, passed on for the caller to judge.
 */
export function jobCredentials(client: PromiseClient<jobsCredentialsV1.ProviderCredentialsServiceClient>, workerId: string) {
  return {
    async forAttempt(jobId: string, signal?: AbortSignal): Promise<UserKey> {
      return client.getJobCredential({ jobId, workerId }, { signal });
    },
    async forCancel(jobId: string, predictionId: string): Promise<UserKey> {
      return client.getJobCredential({ jobId, workerId, cancelPredictionId: predictionId });
    },
    async reportRefused(jobId: string): Promise<void> {
      await client.reportCredentialRefused({ jobId, workerId });
    },
  };
}

export type JobCredentials = ReturnType<typeof jobCredentials>;
