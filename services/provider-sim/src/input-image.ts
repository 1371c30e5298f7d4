import sharp from 'sharp';
import type { PredictionError } from './domain/prediction.js';

/** How long fetching the input may take before the prediction fails `input_unreachable`. */
export const INPUT_FETCH_TIMEOUT_MS = 10_000;
/** Larger inputs are refused (`input_invalid`): the same ceiling media puts on uploads. */
export const MAX_INPUT_BYTES = 20 * 1024 * 1024;

/** Why an input could not be used; becomes the failed prediction's error. */
export class InputImageError extends Error {
  override name = 'InputImageError';

  constructor(
    readonly code: 'input_unreachable' | 'input_invalid',
    message: string,
  ) {
    super(message);
  }

  toPredictionError(): PredictionError {
    return { code: this.code, message: this.message };
  }
}

async function readCapped(response: Response): Promise<Buffer> {
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > MAX_INPUT_BYTES) throw new InputImageError('input_invalid', `the input image is larger than ${MAX_INPUT_BYTES} bytes`);
  const chunks: Buffer[] = [];
  let length = 0;
  if (!response.body) return Buffer.alloc(0);
  for await (const chunk of response.body) {
    length += chunk.byteLength;
    if (length > MAX_INPUT_BYTES) throw new InputImageError('input_invalid', `the input image is larger than ${MAX_INPUT_BYTES} bytes`);
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}

/**
 * Downloads the input image and checks sharp can decode it. `signal` is the prediction's cancel
 * signal: a cancel aborts the download at once (the caller then sees the abort, not an
 * InputImageError). The URL is never logged or echoed beyond its host: presigned URLs carry
 * credentials in their query string.
 */
export async function fetchInputImage(url: string, signal: AbortSignal, timeoutMs = INPUT_FETCH_TIMEOUT_MS): Promise<Buffer> {
  const host = new URL(url).host;
  let bytes: Buffer;
  try {
    const response = await fetch(url, { signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]), redirect: 'follow' });
    if (!response.ok) {
      await response.body?.cancel().catch(() => {});
      throw new InputImageError('input_unreachable', `fetching the input image from ${host} answered HTTP ${response.status}`);
    }
    bytes = await readCapped(response);
  } catch (error) {
    if (signal.aborted || error instanceof InputImageError) throw error;
    const timedOut = error instanceof Error && error.name === 'TimeoutError';
    const reason = timedOut ? `no answer within ${timeoutMs} ms` : describeFetchError(error);
    throw new InputImageError('input_unreachable', `could not fetch the input image from ${host}: ${reason}`);
  }
  try {
    const metadata = await sharp(bytes).metadata();
    if (!metadata.width || !metadata.height) throw new Error('no pixel size');
  } catch {
    throw new InputImageError(
      'input_invalid',
      `the input image from ${host} is not an image this vendor can read (PNG, JPEG, WebP, GIF, TIFF, AVIF)`,
    );
  }
  return bytes;
}

// undici reports "fetch failed" and hides the useful part (ECONNREFUSED, ENOTFOUND) in `cause`.
function describeFetchError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause as { code?: string; message?: string } | undefined;
  return cause?.code ?? cause?.message ?? error.message;
}
