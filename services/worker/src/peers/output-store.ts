import { createHash } from 'node:crypto';
import { mediaV1 } from '@atelier/contracts';
import type { PromiseClient } from '@atelier/grpc';

const CHUNK_BYTES = 64 * 1024;
const PUT_DEADLINE_MS = 30_000;

/** PutServerAsset's messages: the header, then the bytes in chunks. */
function* putMessages(job: { id: string; userId: string }, output: { bytes: Buffer; contentType: string }) {
  yield {
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
  } satisfies mediaV1.PutServerAssetRequest;
  for (let offset = 0; offset < output.bytes.length; offset += CHUNK_BYTES) {
    yield { part: { $case: 'chunk', chunk: output.bytes.subarray(offset, offset + CHUNK_BYTES) } } satisfies mediaV1.PutServerAssetRequest;
  }
}

/**
 * Stores an output as the job user's ai_output asset. The media idempotency key is the job id, so
 * every attempt of a job — including one that crashed after storing — gets the same asset back
 * instead of leaving an orphan behind.
 */
export async function putOutput(
  media: PromiseClient<mediaV1.MediaServiceClient>,
  job: { id: string; userId: string },
  output: { bytes: Buffer; contentType: string },
): Promise<{ asset: mediaV1.Asset; sha256: string }> {
  const sha256 = createHash('sha256').update(output.bytes).digest('hex');
  const { asset } = await media.putServerAsset(putMessages(job, output), { deadlineMs: PUT_DEADLINE_MS });
  return { asset: asset!, sha256 };
}

/** Removes an output nobody will use (the job was cancelled or failed after it was stored). */
export async function deleteOrphan(media: PromiseClient<mediaV1.MediaServiceClient>, assetId: string, ownerUserId: string): Promise<void> {
  await media.deleteAsset({ assetId, ownerUserId });
}
