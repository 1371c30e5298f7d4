import { mediaV1 } from '@atelier/contracts';
import { decodeMicrosPageToken, encodeMicrosPageToken, pageSize } from '@atelier/encoding';
import { InvalidArgumentError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import { requireUserId } from '@atelier/validation';
import { selectGalleryPage } from '../db/asset-gallery-sql.js';
import { storedPurposeOf } from '../domain/asset-rules.js';
import type { MediaContext } from '../media-context.js';
import { toAssetMessage } from './asset-mapper.js';
import { downloadOf } from './get-asset.js';

type ListAssets = Handler<typeof mediaV1.MediaServiceService.listAssets>;

/** The owner's gallery: uploads and AI outputs, newest first, keyset pages with download URLs. */
export function listAssets(context: MediaContext): ListAssets {
  return async (request) => {
    const owner = requireUserId(request.ownerUserId, 'owner_user_id');
    const limit = pageSize(request.pageSize);
    const purpose =
      request.purpose === mediaV1.AssetPurpose.UNSPECIFIED
        ? null
        : (storedPurposeOf(request.purpose) ?? invalid('purpose', 'is not a known purpose'));
    const cursor = decodeMicrosPageToken(request.cursor, 'cursor');
    const rows = await selectGalleryPage(context.pool, owner, purpose, cursor, limit);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      items: await Promise.all(page.map(async (asset) => ({ asset: toAssetMessage(asset), ...(await downloadOf(context, asset)) }))),
      nextCursor: rows.length > limit && last ? encodeMicrosPageToken({ createdMicros: last.createdMicros, id: last.id }) : '',
    };
  };
}

function invalid(field: string, problem: string): never {
  throw new InvalidArgumentError(field, problem);
}
