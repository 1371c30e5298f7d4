import { randomUUID } from 'node:crypto';
import { jobsUsageV1 } from '@atelier/contracts';
import type { CallCredential } from './call-credential.js';
import type { Prediction, PredictionRequest, ProviderClient } from './provider-client.js';
import { ProviderFailure } from './provider-failure.js';

const { ProviderCallKind: Kind, ProviderCallOutcome: Outcome } = jobsUsageV1;

/** The job a client's calls are made for: what each ledger row of them says. */
export interface ProviderCallContext {
  jobId: string;
  /** The attempt (1-based); 0 for a call made outside any attempt (a provider-cancel task). */
  attempt: number;
  providerCode: string;
  /** Empty when the caller does not know them: jobs fills them from the job's snapshot. */
  providerModel: string;
  modelVersion: string;
  credential: CallCredential;
}

/** Where recorded calls go (ProviderCallLedger batches them to jobs). */
export interface ProviderCallSink {
  record(call: jobsUsageV1.ProviderCallInput): void;
}

/**
 * A ProviderClient that records every call it makes — submit, get (poll), cancel, download
 * (output fetch) — to the usage ledger: when, how long, how it ended (ok, rate_limited, refused,
 * unavailable, aborted), the vendor's error code and HTTP status, and the billable units of a
 * prediction seen ended (its metrics). Each call gets its own request key, once: a retried write
 * of the row is a no-op in jobs. The inner client's answers and errors pass through unchanged.
 */
export function recordingProviderClient(inner: ProviderClient, context: ProviderCallContext, sink: ProviderCallSink): ProviderClient {
  /** The prediction this client last heard of: the output fetched belongs to it. */
  let lastPredictionId = '';

  async function recorded<T>(
    kind: jobsUsageV1.ProviderCallKind,
    vendorIdOf: (result: T | undefined) => string,
    signal: AbortSignal | undefined,
    run: () => Promise<T>,
  ): Promise<T> {
    const calledAt = new Date();
    const started = performance.now();
    const row = (fields: Partial<jobsUsageV1.ProviderCallInput>) =>
      sink.record(
        jobsUsageV1.ProviderCallInput.fromPartial({
          jobId: context.jobId,
          attempt: context.attempt,
          callKind: kind,
          requestKey: randomUUID(),
          providerCode: context.providerCode,
          providerModel: context.providerModel,
          modelVersion: context.modelVersion,
          credentialMode: context.credential.mode,
          credentialId: context.credential.id,
          latencyMs: Math.max(0, Math.round(performance.now() - started)),
          calledAt,
          ...fields,
        }),
      );
    try {
      const result = await run();
      row({ outcome: Outcome.OK, vendorId: vendorIdOf(result), ...unitsOf(result) });
      return result;
    } catch (error) {
      row({ vendorId: vendorIdOf(undefined), ...failureOf(error, signal) });
      throw error;
    }
  }

  const remember = (prediction: Prediction) => {
    lastPredictionId = prediction.id;
    return prediction;
  };

  return {
    submit: (request: PredictionRequest, idempotencyKey: string, signal: AbortSignal) =>
      recorded(
        Kind.SUBMIT,
        (prediction: Prediction | undefined) => prediction?.id ?? '',
        signal,
        async () => remember(await inner.submit(request, idempotencyKey, signal)),
      ),
    get: (predictionId: string, signal: AbortSignal, echoes?: readonly string[]) =>
      recorded(
        Kind.POLL,
        () => predictionId,
        signal,
        async () => remember(await inner.get(predictionId, signal, echoes)),
      ),
    cancel: (predictionId: string) =>
      recorded(
        Kind.CANCEL,
        () => predictionId,
        undefined,
        () => inner.cancel(predictionId),
      ),
    download: (url: string, signal: AbortSignal) => {
      const vendorId = lastPredictionId;
      return recorded(
        Kind.OUTPUT_FETCH,
        () => vendorId,
        signal,
        () => inner.download(url, signal),
      );
    },
  };
}

/** The billable units of a prediction that ended, as the vendor reported them. */
function unitsOf(result: unknown): Pick<jobsUsageV1.ProviderCallInput, 'predictTimeMs' | 'images'> {
  const prediction = result as Partial<Prediction> | undefined;
  if (!prediction || typeof prediction !== 'object' || !('status' in prediction)) return {};
  if (prediction.status !== 'succeeded' && prediction.status !== 'failed' && prediction.status !== 'canceled') return {};
  const metrics = prediction.metrics;
  const seconds = metrics?.predict_time;
  const images = metrics?.images;
  return {
    ...(typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0 ? { predictTimeMs: Math.round(seconds * 1000) } : {}),
    ...(typeof images === 'number' && Number.isInteger(images) && images >= 0 ? { images } : {}),
  };
}

/** How a failed call ended, in the ledger's words. */
export function failureOf(
  error: unknown,
  signal: AbortSignal | undefined,
): Pick<jobsUsageV1.ProviderCallInput, 'outcome' | 'errorCode' | 'httpStatus'> {
  if (!(error instanceof ProviderFailure)) {
    return {
      outcome: signal?.aborted ? Outcome.ABORTED : Outcome.UNAVAILABLE,
      errorCode: signal?.aborted ? 'ABORTED' : 'PROVIDER_UNAVAILABLE',
    };
  }
  const outcome = error.code === 'PROVIDER_RATE_LIMITED' ? Outcome.RATE_LIMITED : error.transient ? Outcome.UNAVAILABLE : Outcome.REFUSED;
  return { outcome, errorCode: error.code, ...(error.httpStatus === undefined ? {} : { httpStatus: error.httpStatus }) };
}
