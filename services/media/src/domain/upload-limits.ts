import { ResourceExhaustedError, secondsToNextUtcDay } from '@atelier/errors';

/** The per-user limits CreateUpload enforces (UPLOADS_DAILY_LIMIT, STORED_BYTES_LIMIT: docs/configuration.md). */
export interface UploadLimits {
  /** Uploads a user may start per UTC day (UPLOADS_DAILY_LIMIT). */
  uploadsPerDay: number;
  /** Bytes a user's live assets may take, uploads in progress included (STORED_BYTES_LIMIT). */
  storedBytes: number;
  /** Retry-After of the stored-bytes refusal: it frees only when the user deletes something. */
  storedBytesRetryAfterSeconds: number;
}

/** Generous enough for any real user; small enough that one account cannot fill the bucket. */
export const DEFAULT_UPLOAD_LIMITS: UploadLimits = {
  uploadsPerDay: 500,
  storedBytes: 5 * 1024 * 1024 * 1024,
  storedBytesRetryAfterSeconds: 3600,
};

export interface UploadUsage {
  /** Uploads the user started since 00:00 UTC today, whatever became of them. */
  startedToday: number;
  /** Declared sizes of the user's assets that are not deleted (uploading ones included). */
  storedBytes: number;
}

/**
 * Refuses an upload of `sizeBytes` that would break a limit. Uploads count from the moment they
 * start: the declared size is what the presigned PUT allows, so it is reserved at once (a
 * completion never changes it; sweeping or deleting the asset gives it back).
 */
export function checkUploadLimits(usage: UploadUsage, sizeBytes: number, limits: UploadLimits, now: Date): void {
  if (usage.startedToday >= limits.uploadsPerDay) {
    throw new ResourceExhaustedError(
      'UPLOAD_QUOTA_EXCEEDED',
      `daily limit of ${limits.uploadsPerDay} uploads reached; it resets at 00:00 UTC`,
      secondsToNextUtcDay(now),
      { params: { limit: limits.uploadsPerDay } },
    );
  }
  if (usage.storedBytes + sizeBytes > limits.storedBytes) {
    throw new ResourceExhaustedError(
      'STORAGE_QUOTA_EXCEEDED',
      `this upload of ${sizeBytes} bytes would take your stored bytes past the limit of ${limits.storedBytes} (${usage.storedBytes} in use); delete images to make room`,
      limits.storedBytesRetryAfterSeconds,
      { params: { sizeBytes, limit: limits.storedBytes, used: usage.storedBytes } },
    );
  }
}
