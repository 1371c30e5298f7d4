import type { mediaV1 } from '@atelier/contracts';
import { FailedPreconditionError, NotFoundError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import { requireUuid } from '@atelier/validation';
import { selectAsset } from '../db/asset-sql.js';
import type { MediaContext } from '../media-context.js';
import { toAssetMessage } from './asset-mapper.js';

type ReadAsset = Handler<typeof mediaV1.MediaServiceService.readAsset>;

const CHUNK_BYTES = 64 * 1024;

/** Streams a ready asset: its metadata first, then its bytes in chunks of at most 64 KiB. */
export function readAsset({ pool, store }: MediaContext): ReadAsset {
  return async (request, stream, context) => {
    const id = requireUuid(request.assetId, 'asset_id');
    const asset = await selectAsset(pool, id);
    if (!asset || asset.status === 'deleted') throw new NotFoundError('asset');
    if (asset.status !== 'ready') throw new FailedPreconditionError('ASSET_NOT_READY', 'the asset has not been completed yet');
    await stream.write({ part: { $case: 'asset', asset: toAssetMessage(asset) } });
    const body = await store.getStream(asset.storageKey);
    try {
      for await (const piece of body as AsyncIterable<Buffer>) {
        for (let offset = 0; offset < piece.length; offset += CHUNK_BYTES) {
          if (context.signal.aborted) return;
          await stream.write({ part: { $case: 'chunk', chunk: piece.subarray(offset, offset + CHUNK_BYTES) } });
        }
      }
    } finally {
      body.destroy();
    }
  };
}
