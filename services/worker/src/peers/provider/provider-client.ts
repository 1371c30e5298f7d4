import { isTransientError, isTransientHttpStatus } from '@atelier/errors';
import { inSpan, SpanKind } from '@atelier/telemetry';
import { ProviderFailure } from './provider-failure.js';
import { isAllowedOutputUrl, OutputTooLargeError, readCappedBody, type OutputLimits } from './output-limits.js';
import { redactVendorText } from './vendor-text.js';

/** A prediction as the vendor reports it (provider-sim's API, modelled on async image vendors). */
export interface Prediction {
  id: string;
  status: 'starting' | 'processing' | 'succeeded' | 'failed' | 'canceled';
  progress: number;
  output_url: string | null;
  output_content_type: string | null;
  error: { code: string; message: string } | null;
  safety: { flagged: boolean } | null;
  /** What the vendor bills for the prediction once it ended (Replicate's shape): seconds of predict time, images. */
  metrics?: { predict_time?: number | null; images?: number | null } | null;
}

export interface PredictionRequest {
  model: string;
  version: string;
  input: Record<string, unknown> & { image_url: string };
}

/** What a provider client can do; one implementation per provider code. */
export interface ProviderClient {
  submit(request: PredictionRequest, idempotencyKey: string, signal: AbortSignal): Promise<Prediction>;
  /** `echoes`: the job's prompts, replaced if the vendor's error text repeats them. */
  get(predictionId: string, signal: AbortSignal, echoes?: readonly string[]): Promise<Prediction>;
  /** Best effort: a failed cancel is logged by the caller, never thrown at the user. */
  cancel(predictionId: string): Promise<void>;
  download(url: string, signal: AbortSignal): Promise<{ bytes: Buffer; contentType: string }>;
}

const REQUEST_TIMEOUT_MS = 15_000;

/**
 * HTTP client of provider-sim (and of vendors with the same submit / poll / cancel shape).
 * Transport and status failures become classified ProviderFailures — transient ones (5xx, 429,
 * refused, reset, no answer) marked so, for the executor to retry inside the attempt; an abort of
 * the caller's signal (timeout, cancel, lost lease) is rethrown untouched for the pipeline to
 * interpret.
 */
export class HttpProviderClient implements ProviderClient {
  /** `apiKey`: the key, or where to read the current one (the platform's, rotated without a restart). */
  constructor(private readonly options: { baseUrl: string; apiKey: string | (() => string); output: OutputLimits }) {}

  async submit(request: PredictionRequest, idempotencyKey: string, signal: AbortSignal): Promise<Prediction> {
    return this.call('POST', '/v1/predictions', signal, {
      body: JSON.stringify(request),
      headers: { 'Idempotency-Key': idempotencyKey },
      // Vendors echo the request in their refusals.
      echoes: [request.input.prompt, request.input.negative_prompt].filter((text): text is string => typeof text === 'string'),
    });
  }

  async get(predictionId: string, signal: AbortSignal, echoes: readonly string[] = []): Promise<Prediction> {
    return this.call('GET', `/v1/predictions/${encodeURIComponent(predictionId)}`, signal, { echoes });
  }

  async cancel(predictionId: string): Promise<void> {
    await this.call('POST', `/v1/predictions/${encodeURIComponent(predictionId)}/cancel`, AbortSignal.timeout(5_000));
  }

  /**
   * The output, only from an allowed host and never more than the cap (output-limits.ts); either
   * refusal is an invalid output (VALIDATION), so the prediction is given up. Redirects are not
   * followed: they could lead anywhere.
   */
  async download(url: string, signal: AbortSignal): Promise<{ bytes: Buffer; contentType: string }> {
    const { hosts, maxBytes } = this.options.output;
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      throw ProviderFailure.validation('VALIDATION_OUTPUT_URL_INVALID', 'the output URL is not a URL');
    }
    if (!isAllowedOutputUrl(target, hosts)) {
      throw ProviderFailure.validation(
        'VALIDATION_OUTPUT_HOST_NOT_ALLOWED',
        `the output is on ${target.protocol}//${target.host}, not on an allowed host (PROVIDER_OUTPUT_HOSTS)`,
      );
    }
    const response = await this.fetch(
      target,
      { redirect: 'manual', signal: AbortSignal.any([signal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]) },
      signal,
    );
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel().catch(() => {});
      throw ProviderFailure.validation(
        'VALIDATION_OUTPUT_HOST_NOT_ALLOWED',
        `the output download answered a redirect (${response.status})`,
      );
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => {});
      // The prediction succeeded, so its output is there to fetch: a 5xx or 429 now is the vendor's
      // passing trouble. Only an output the vendor no longer has (404, 410) gives the prediction up.
      const gone = response.status === 404 || response.status === 410;
      throw ProviderFailure.provider(
        gone ? 'PROVIDER_OUTPUT_LOST' : 'PROVIDER_OUTPUT_UNAVAILABLE',
        `output download answered ${response.status}`,
        {
          transient: isTransientHttpStatus(response.status),
          abandonsPrediction: gone,
          retryAfterMs: retryAfterMs(response),
          httpStatus: response.status,
        },
      );
    }
    try {
      return {
        bytes: await readCappedBody(response, maxBytes),
        contentType: response.headers.get('content-type') ?? 'application/octet-stream',
      };
    } catch (error) {
      if (error instanceof OutputTooLargeError) throw ProviderFailure.validation('VALIDATION_OUTPUT_TOO_LARGE', error.message);
      if (signal.aborted) throw signal.reason;
      throw ProviderFailure.provider('PROVIDER_OUTPUT_UNAVAILABLE', `output download broke off: ${(error as Error).message}`, {
        transient: isTransientError(error),
        cause: error,
      });
    }
  }

  private async call(
    method: string,
    path: string,
    signal: AbortSignal,
    extra: { body?: string; headers?: Record<string, string>; echoes?: readonly string[] } = {},
  ): Promise<Prediction> {
    const response = await this.fetch(
      new URL(path, this.options.baseUrl),
      {
        method,
        body: extra.body,
        headers: {
          authorization: `Bearer ${typeof this.options.apiKey === 'function' ? this.options.apiKey() : this.options.apiKey}`,
          ...(extra.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...extra.headers,
        },
        signal: AbortSignal.any([signal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]),
      },
      signal,
    );
    const text = await response.text();
    if (response.ok) return JSON.parse(text) as Prediction;
    // Stored with the attempt and logged: never the whole body, never what may be secret in it.
    const detail = `${method} ${path} answered ${response.status}: ${redactVendorText(text, extra.echoes)}`;
    const httpStatus = response.status;
    if (httpStatus === 401 || httpStatus === 403) throw ProviderFailure.credential('CREDENTIAL_INVALID', detail, { httpStatus });
    if (httpStatus === 429) {
      throw ProviderFailure.provider('PROVIDER_RATE_LIMITED', detail, {
        transient: true,
        retryAfterMs: retryAfterMs(response),
        httpStatus,
      });
    }
    if (httpStatus === 404) throw ProviderFailure.provider('PROVIDER_PREDICTION_LOST', detail, { abandonsPrediction: true, httpStatus });
    if (isTransientHttpStatus(httpStatus)) throw ProviderFailure.provider('PROVIDER_UNAVAILABLE', detail, { transient: true, httpStatus });
    throw ProviderFailure.internal('INTERNAL_PROVIDER_REQUEST_REJECTED', detail, { httpStatus });
  }

  /**
   * Node's fetch is not covered by the HTTP instrumentation, so the client span and the
   * traceparent header that carry the job's trace to the vendor are added here.
   */
  private async fetch(url: string | URL, init: RequestInit, callerSignal: AbortSignal): Promise<Response> {
    const method = init.method ?? 'GET';
    const target = new URL(url);
    return inSpan(
      method,
      {
        kind: SpanKind.CLIENT,
        attributes: { 'http.request.method': method, 'server.address': target.hostname, 'url.path': target.pathname },
      },
      async (carrier) => {
        try {
          const response = await fetch(target, {
            ...init,
            headers: { ...(init.headers as Record<string, string> | undefined), ...carrier },
          });
          return response;
        } catch (error) {
          if (callerSignal.aborted) throw callerSignal.reason;
          // Refused, reset or no answer within REQUEST_TIMEOUT_MS: the vendor may be back in a moment.
          // A request that cannot be made at all (a bad URL, a certificate refused) fails the attempt.
          throw ProviderFailure.provider('PROVIDER_UNAVAILABLE', `provider unreachable: ${(error as Error).message}`, {
            transient: isTransientError(error),
            cause: error,
          });
        }
      },
    );
  }
}

/** Whole milliseconds of a Retry-After header given in seconds (the form vendors use), if any. */
function retryAfterMs(response: Response): number | undefined {
  const seconds = Number(response.headers.get('retry-after'));
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds, 300) * 1000 : undefined;
}

/** The failure a finished prediction is, if any. The vendor ended it: it is given up either way. */
export function predictionFailure(prediction: Prediction, echoes: readonly (string | undefined)[] = []): ProviderFailure | undefined {
  if (prediction.status === 'failed') {
    // The vendor's message may echo the job's prompts: `echoes` are replaced in what is kept.
    const reported = redactVendorText(`${prediction.error?.code ?? 'unknown'} ${prediction.error?.message ?? ''}`.trim(), echoes);
    const detail = `prediction ${prediction.id} failed: ${reported}`;
    return prediction.error?.code === 'content_policy_violation'
      ? ProviderFailure.contentSafety('CONTENT_SAFETY_REJECTED', detail)
      : ProviderFailure.provider('PROVIDER_PREDICTION_FAILED', detail, { abandonsPrediction: true });
  }
  if (prediction.status === 'canceled') {
    return ProviderFailure.provider('PROVIDER_PREDICTION_CANCELED', `prediction ${prediction.id} was cancelled at the provider`, {
      abandonsPrediction: true,
    });
  }
  return undefined;
}
