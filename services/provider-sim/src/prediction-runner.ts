import { setTimeout as sleep } from 'node:timers/promises';
import sharp from 'sharp';
import type { Logger } from '@atelier/logging';
import { fetchInputImage, InputImageError } from './input-image.js';
import { markFailed, markProcessing, markSucceeded, type Prediction, type PredictionOutput } from './domain/prediction.js';
import type { PredictionInput } from './domain/request-validation.js';
import type { SimulationKind } from './domain/simulation-directives.js';
import { transformImage } from './domain/transforms.js';
import { badOutput, isBadOutputKind } from './domain/simulated-outputs.js';

export interface RunPlan {
  model: string;
  input: PredictionInput;
  /** A failure that shapes the ending; refusals never get this far. */
  simulation: SimulationKind | undefined;
}

export interface RunnerDeps {
  logger: Logger;
  now: () => Date;
  inputTimeoutMs: number;
}

function waitForAbort(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

async function produceOutput(image: Buffer, plan: RunPlan): Promise<PredictionOutput> {
  const bytes = await transformImage(image, { model: plan.model, ...plan.input });
  if (!isBadOutputKind(plan.simulation)) return { bytes, contentType: 'image/png' };
  // The real output's size, so a blank one differs from a good one only in its pixels.
  const { width = 0, height = 0 } = await sharp(bytes).metadata();
  return { bytes: await badOutput(plan.simulation, { width, height }), contentType: 'image/png' };
}

/** Ends the prediction once its latency has passed, as the simulation says. */
async function settle(prediction: Prediction, image: Buffer, plan: RunPlan, deps: RunnerDeps): Promise<void> {
  if (plan.simulation === 'prediction_failed') {
    markFailed(prediction, { code: 'provider_error', message: 'the model failed to produce an output (simulated failure)' }, deps.now());
    return;
  }
  if (plan.simulation === 'content_safety') {
    const message = 'the input or prompt was refused by the content policy (simulated failure)';
    markFailed(prediction, { code: 'content_policy_violation', message }, deps.now());
    return;
  }
  const output = await produceOutput(image, plan);
  // A cancel that landed during the transform wins: the output is dropped.
  markSucceeded(prediction, output, plan.simulation === 'flagged', deps.now());
}

/**
 * Runs one prediction to its end: fetch the input (`starting`), wait out the latency
 * (`processing`, progress computed on read), transform, store the output. A cancel aborts the
 * prediction's signal, which ends any pending fetch or wait at once; every transition is refused
 * once the prediction is terminal, so nothing is written after a cancel. Never rejects.
 */
export async function runPrediction(prediction: Prediction, plan: RunPlan, deps: RunnerDeps): Promise<void> {
  const { signal } = prediction.abort;
  try {
    const image = await fetchInputImage(plan.input.imageUrl, signal, deps.inputTimeoutMs);
    if (!markProcessing(prediction, deps.now())) return;
    if (plan.simulation === 'hang') {
      // Never finishes: progress creeps to 99 and stays there until a cancel aborts the signal.
      await waitForAbort(signal);
      return;
    }
    await sleep(prediction.latencyMs, undefined, { signal });
    await settle(prediction, image, plan, deps);
  } catch (error) {
    if (signal.aborted) return; // cancelled, or the server is closing
    if (error instanceof InputImageError) {
      markFailed(prediction, error.toPredictionError(), deps.now());
    } else {
      deps.logger.error({ err: error, predictionId: prediction.id }, 'prediction failed inside provider-sim');
      markFailed(prediction, { code: 'provider_error', message: 'the prediction failed inside provider-sim; see its log' }, deps.now());
    }
  } finally {
    // An aborted run was ended by someone else (a cancel logs itself; a closing server does not care).
    if (!signal.aborted) logOutcome(prediction, deps.logger);
  }
}

function logOutcome(prediction: Prediction, logger: Logger): void {
  logger.info(
    {
      predictionId: prediction.id,
      status: prediction.status,
      errorCode: prediction.error?.code,
      flagged: prediction.flagged || undefined,
    },
    'prediction ended',
  );
}
