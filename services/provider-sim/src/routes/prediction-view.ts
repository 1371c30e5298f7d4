import { progressOf, type Prediction } from '../domain/prediction.js';

/** A prediction as the API returns it (snake_case, nulls rather than missing fields). */
export interface PredictionJson {
  id: string;
  model: string;
  version: string | null;
  status: Prediction['status'];
  /** The submitted input (snake_case, the image URL left out, only the fields given). */
  input: Record<string, string | number>;
  progress: number;
  idempotency_key: string | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  output_url: string | null;
  output_content_type: string | null;
  error: { code: string; message: string } | null;
  safety: { flagged: boolean } | null;
  /**
   * What the vendor bills, Replicate's shape, once the prediction ended: `predict_time` in seconds
   * (float) and `images` produced (1 for a success, 0 otherwise); `predict_time_ms` as before.
   */
  metrics: { predict_time_ms: number | null; predict_time?: number; images?: number };
}

const INPUT_NAMES = {
  style: 'style',
  prompt: 'prompt',
  negativePrompt: 'negative_prompt',
  width: 'width',
  height: 'height',
  strength: 'strength',
  scale: 'scale',
  seed: 'seed',
} as const satisfies Record<keyof Prediction['input'], string>;

function inputJson(input: Prediction['input']): Record<string, string | number> {
  const json: Record<string, string | number> = {};
  for (const [field, name] of Object.entries(INPUT_NAMES)) {
    const value = input[field as keyof Prediction['input']];
    if (value !== undefined) json[name] = value;
  }
  return json;
}

/** `publicUrl` is the base put into output_url (PUBLIC_URL or the bound loopback address). */
export function toPredictionJson(prediction: Prediction, publicUrl: string, now: Date): PredictionJson {
  const succeeded = prediction.status === 'succeeded';
  return {
    id: prediction.id,
    model: prediction.model,
    version: prediction.version,
    status: prediction.status,
    input: inputJson(prediction.input),
    progress: progressOf(prediction, now),
    idempotency_key: prediction.idempotencyKey,
    created_at: prediction.createdAt.toISOString(),
    started_at: prediction.startedAt?.toISOString() ?? null,
    completed_at: prediction.completedAt?.toISOString() ?? null,
    output_url: succeeded ? `${publicUrl}/v1/predictions/${prediction.id}/output` : null,
    output_content_type: succeeded ? prediction.outputContentType : null,
    error: prediction.status === 'failed' ? prediction.error : null,
    safety: succeeded ? { flagged: prediction.flagged } : null,
    metrics: metricsOf(prediction),
  };
}

/** Time spent running, as vendors bill it: none until it ends, and none for inputs never fetched. */
function metricsOf(prediction: Prediction): PredictionJson['metrics'] {
  const { startedAt, completedAt } = prediction;
  const predictTimeMs = startedAt && completedAt ? completedAt.getTime() - startedAt.getTime() : null;
  if (predictTimeMs === null) return { predict_time_ms: null };
  return { predict_time_ms: predictTimeMs, predict_time: predictTimeMs / 1000, images: prediction.status === 'succeeded' ? 1 : 0 };
}
