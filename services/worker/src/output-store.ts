import { createHash } from 'node:crypto';
import { mediaV1 } from '@atelier/contracts';
import { fromServiceError, type PromiseClient } from '@atelier/grpc';

const CHUNK_BYTES = 64 * 1024;

/**
 * Stores an output as the job user's ai_output asset. The media idempotency key is the job id, so
 * every attempt of a job — including one that crashed after storing — gets the same asset back
 * instead of leaving an orphan behind.
 */
export function putOutput(
  media: PromiseClient<mediaV1.MediaServiceClient>,
  job: { id: string; userId: string },
  output: { bytes: Buffer; contentType: string },
): Promise<{ asset: mediaV1.Asset; sha256: string }> {
  const sha256 = createHash('sha256').update(output.bytes).digest('hex');
  return new Promise((resolve, reject) => {
    const call = media.raw.putServerAsset({ deadline: Date.now() + 30_000 }, (error, response) =>
      error ? reject(fromServiceError(error)) : resolve({ asset: response.asset!, sha256 }),
    );
    call.write({
      part: {
        $case: 'header',
        header: {
          ownerUserId: job.userId,
          purpose: mediaV1.AssetPurpose.AI_OUTPUT,
          contentType: output.contentType,
          sizeBytes: output.bytes.length,
          idempotencyKey: job.id,
        },
      },
    });
    for (let offset = 0; offset < output.bytes.length; offset += CHUNK_BYTES) {
      call.write({ part: { $case: 'chunk', chunk: output.bytes.subarray(offset, offset + CHUNK_BYTES) } });
    }
    call.end();
  });
}

/** Removes an output nobody will use (the job was cancelled or failed after it was stored). */
export async function deleteOrphan(media: PromiseClient<mediaV1.MediaServiceClient>, assetId: string, ownerUserId: string): Promise<void> {
  await media.deleteAsset({ assetId, ownerUserId });
}
