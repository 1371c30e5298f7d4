import { redactVendorText } from './vendor-text.js';

/**
 * A prediction as the vendor's list shows it (provider-sim's `GET /v1/predictions`, shaped on
 * Replicate's): what reconciliation needs, nothing of the input or output.
 */
export interface ListedPrediction {
  id: string;
  status: string;
  createdAt: Date;
  idempotencyKey: string | undefined;
  predictTimeMs: number | undefined;
  images: number | undefined;
}

interface ListedPredictionJson {
  id: string;
  status: string;
  created_at: string;
  idempotency_key?: string | null;
  metrics?: { predict_time?: number | null; predict_time_ms?: number | null; images?: number | null } | null;
}

/** The vendor's largest page. */
const PAGE_LIMIT = 500;
const REQUEST_TIMEOUT_MS = 15_000;
/** A list longer than this many pages is cut (and the run fails, to be retried): a loop guard. */
const MAX_PAGES = 10_000;

/** Seconds (Replicate's `predict_time`) or milliseconds, as whole milliseconds. */
function predictTimeMsOf(metrics: ListedPredictionJson['metrics']): number | undefined {
  if (typeof metrics?.predict_time === 'number') return Math.max(0, Math.round(metrics.predict_time * 1000));
  if (typeof metrics?.predict_time_ms === 'number') return Math.max(0, Math.round(metrics.predict_time_ms));
  return undefined;
}

function toListed(json: ListedPredictionJson): ListedPrediction {
  return {
    id: json.id,
    status: json.status,
    createdAt: new Date(json.created_at),
    idempotencyKey: json.idempotency_key ?? undefined,
    predictTimeMs: predictTimeMsOf(json.metrics),
    images: typeof json.metrics?.images === 'number' ? json.metrics.images : undefined,
  };
}

/**
 * The predictions of the account the key belongs to, created in [from, until), page by page,
 * oldest first. A separate client from ProviderClient (which runs one job's prediction): only
 * reconciliation lists, with the platform key. The vendor's `next` URL is followed by its cursor
 * on our own base URL (the vendor's public URL may not be the one we reach it at). Any refusal or
 * transport failure throws: the run is given up and its window offered again.
 */
export async function* listVendorPredictions(
  vendor: { baseUrl: string; apiKey: string },
  window: { from: Date; until: Date },
  signal: AbortSignal,
): AsyncGenerator<ListedPrediction[]> {
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const url = new URL('/v1/predictions', vendor.baseUrl);
    url.searchParams.set('created_after', window.from.toISOString());
    url.searchParams.set('created_before', window.until.toISOString());
    url.searchParams.set('limit', String(PAGE_LIMIT));
    if (cursor) url.searchParams.set('cursor', cursor);
    const response = await fetch(url, {
      headers: { authorization: `Bearer ${vendor.apiKey}` },
      signal: AbortSignal.any([signal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`GET /v1/predictions answered ${response.status}: ${redactVendorText(text)}`);
    const body = JSON.parse(text) as { results: ListedPredictionJson[]; next: string | null };
    yield body.results.map(toListed);
    cursor = body.next ? (new URL(body.next).searchParams.get('cursor') ?? undefined) : undefined;
    if (!cursor) return;
  }
  throw new Error(`GET /v1/predictions gave more than ${MAX_PAGES} pages`);
}
