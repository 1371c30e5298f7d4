import { setTimeout as sleep } from 'node:timers/promises';
import type { mediaV1 } from '@atelier/contracts';
import type { PromiseClient } from '@atelier/grpc';
import { OUTPUT_VALIDATION_CODES, findJobType, retrySeed, type OutputRejection, type OutputRules } from '@atelier/job-types';
import type { Logger } from '@atelier/logging';
import { retryInAttempt } from '../domain/attempt-retry.js';
import type { CrashPoint } from '../domain/crash-points.js';
import { JobFailure } from '../domain/job-failure.js';
import { predictionFailure, type Prediction, type ProviderClient } from '../peers/provider/provider-client.js';
import type { ProviderClients } from '../peers/provider/provider-clients.js';
import type { ProviderCallRecording } from '../peers/provider-call-ledger.js';
import { credentialRefusal, resolveJobCredential } from './job-credential.js';
import type { ExecutionContext, JobExecutor } from './job-executor.js';
import { asJobFailures, jobFailureOf } from './provider-failures.js';
import type { ImageDecoder } from './output-decoder.js';
import { validateImageOutput } from './output-validation.js';

export interface ImageExecutorOptions {
  /** The vendor clients, bound to the job's credential (the platform's key or the user's own). */
  clients: ProviderClients;
  media: PromiseClient<mediaV1.MediaServiceClient>;
  /** Decodes each output for its validation, apart from the worker's process (OutputDecoder). */
  decoder: ImageDecoder;
  pollIntervalMs: number;
  crashPoint: (point: CrashPoint) => void;
  logger: Logger;
  /** The usage ledger: every call to the vendor is recorded through it (none when absent). */
  calls?: Pick<ProviderCallRecording, 'clientFor'>;
  /** Counts an output refused by its type's rules, by the vendor model that made it and the rule it broke. */
  onOutputRejected?: (model: string, rejection: OutputRejection) => void;
}

/**
 * image.* jobs through an async vendor, in the order that never pays twice (L2):
 * submit with the job's provider idempotency key → record the request id with the jobs service →
 * only then poll. An attempt that finds a recorded request polls it and never submits again.
 * Every step survives passing faults of the vendor and of our own services (retryInAttempt);
 * the prediction is given up (abandonsPrediction) only when the vendor itself ended it or its
 * output is unusable.
 */
export function imageExecutor(options: ImageExecutorOptions): JobExecutor {
  return {
    async execute(context: ExecutionContext) {
      const { claimed, signal } = context;
      const job = claimed.job!;
      const snapshot = job.snapshot;
      const { logger } = options;
      const credential = snapshot ? await resolveJobCredential(options.clients, job, signal, logger) : undefined;
      const provider =
        snapshot && credential
          ? options.clients.clientFor(
              snapshot.providerCode,
              credential,
              (vendor) =>
                options.calls?.clientFor(vendor, {
                  jobId: job.id,
                  attempt: claimed.attempt,
                  providerCode: snapshot.providerCode,
                  providerModel: snapshot.providerModel,
                  modelVersion: snapshot.modelVersion,
                  credential: { mode: credential.mode, id: credential.id },
                }) ?? vendor,
            )
          : undefined;
      if (!snapshot || !provider || !credential) {
        throw JobFailure.internal('INTERNAL_PROVIDER_UNKNOWN', `no provider client for "${snapshot?.providerCode ?? '(none)'}"`);
      }
      const rules = findJobType(job.jobType)?.output;
      if (!rules) throw JobFailure.internal('INTERNAL_OUTPUT_RULES_MISSING', `job type "${job.jobType}" declares no output rules`);
      const fixed = snapshot;
      try {
        return await run(provider, fixed, rules);
      } catch (error) {
        throw await credentialRefusal(error, credential, job.id, options.clients, logger);
      }

      async function run(provider: ProviderClient, snapshot: NonNullable<typeof job.snapshot>, rules: OutputRules) {
        // What the jobs service fixed at create (catalog defaults, style preset, user values); a job
        // created before it was recorded runs with the user's own prompt and parameters.
        const prompt = snapshot.effectivePrompt ?? job.prompt;
        const parameters = snapshot.effectiveParameters ?? job.parameters ?? {};
        let predictionId = claimed.providerRequestId;
        if (!predictionId) {
          const { downloadUrl } = await retryInAttempt(
            'read the input asset',
            () => options.media.getAssetInternal({ assetId: job.inputAssetId!, includeDownloadUrl: true }, { signal }),
            signal,
            logger,
          ).catch((error: unknown) => {
            if (signal.aborted) throw signal.reason;
            throw JobFailure.internal('INTERNAL_INPUT_UNAVAILABLE', `input asset lookup failed: ${(error as Error).message}`, {
              cause: error,
            });
          });
          if (!downloadUrl) throw JobFailure.internal('INTERNAL_INPUT_UNAVAILABLE', 'the input asset is not ready');
          const request = {
            model: snapshot.providerModel,
            version: snapshot.modelVersion,
            // Only what the job has: vendors refuse empty strings and nulls.
            input: {
              image_url: downloadUrl,
              ...(snapshot.styleCode ? { style: snapshot.styleCode } : {}),
              ...(prompt ? { prompt } : {}),
              ...(job.negativePrompt ? { negative_prompt: job.negativePrompt } : {}),
              ...(job.width ? { width: job.width } : {}),
              ...(job.height ? { height: job.height } : {}),
              ...parameters,
              ...seedOfThisPrediction(parameters),
            },
          };
          // Submitting again after a transient failure is safe: the same idempotency key gets the
          // same prediction, whether or not the first POST reached the vendor.
          const prediction = await retryInAttempt(
            'submit to the provider',
            asJobFailures(() => provider.submit(request, claimed.providerIdempotencyKey, signal)),
            signal,
            logger,
          );
          options.crashPoint('after-provider-submit');
          context.onProviderRequest(prediction.id, true);
          await retryInAttempt('record the provider request', () => context.recordProviderRequest(prediction.id), signal, logger);
          options.crashPoint('after-provider-record');
          predictionId = prediction.id;
        } else {
          context.onProviderRequest(predictionId, false);
        }

        let prediction: Prediction;
        const echoes = [prompt, job.prompt, job.negativePrompt].filter((text): text is string => Boolean(text));
        for (let polls = 0; ; polls += 1) {
          const id = predictionId;
          prediction = await retryInAttempt(
            'poll the prediction',
            asJobFailures(() => provider.get(id, signal, echoes)),
            signal,
            logger,
          );
          context.reportProgress(Math.min(99, Math.max(0, Math.round(prediction.progress))));
          const failure = predictionFailure(prediction, echoes);
          if (failure) throw jobFailureOf(failure);
          if (prediction.status === 'succeeded') break;
          if (polls === 1) options.crashPoint('while-polling');
          await sleep(options.pollIntervalMs, undefined, { signal });
        }

        if (!prediction.output_url)
          throw JobFailure.validation('VALIDATION_OUTPUT_MISSING', `prediction ${predictionId} succeeded without an output`);
        if (claimed.contentSafety && prediction.safety?.flagged) {
          throw JobFailure.contentSafety('CONTENT_SAFETY_FLAGGED', `prediction ${predictionId} output was flagged by the safety check`);
        }
        const outputUrl = prediction.output_url;
        const { bytes } = await retryInAttempt(
          'download the output',
          asJobFailures(() => provider.download(outputUrl, signal)),
          signal,
          logger,
        );
        const verdict = await validateImageOutput(bytes, rules, { width: job.width, height: job.height }, options.decoder);
        if (!verdict.accepted) {
          options.onOutputRejected?.(snapshot.providerModel, verdict.rejection);
          throw JobFailure.validation(OUTPUT_VALIDATION_CODES[verdict.rejection], `prediction ${predictionId}: ${verdict.reason}`);
        }
        return { output: { bytes, contentType: verdict.contentType } };
      }

      /** A prediction after an abandoned one asks for another image: another seed (retrySeed). */
      function seedOfThisPrediction(parameters: Record<string, unknown>): { seed?: number } {
        const own = typeof parameters['seed'] === 'number' ? parameters['seed'] : undefined;
        const seed = retrySeed({ id: job.id, seed: own }, claimed.providerRequestGeneration);
        return seed === undefined ? {} : { seed };
      }
    },
  };
}
