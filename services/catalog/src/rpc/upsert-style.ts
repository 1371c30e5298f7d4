import type { catalogV1 } from '@atelier/contracts';
import { uuidv7 } from '@atelier/db';
import type { Handler } from '@atelier/grpc';
import type { CatalogContext } from '../catalog-context.js';
import { insertOrUpdateStyle } from '../db/catalog-sql.js';
import { validateStyleInput } from '../domain/catalog-rules.js';
import { toStyleMessage } from './catalog-mapper.js';

type UpsertStyle = Handler<typeof catalogV1.CatalogServiceService.upsertStyle>;

/** Creates or replaces the style with this (code, media_kind), atomically; its preview must be a ready media asset. */
export function upsertStyle({ pool, announceChange, previews }: CatalogContext): UpsertStyle {
  return async (request) => {
    const input = validateStyleInput(request);
    // Checked before the write, not under a lock: an asset deleted afterwards is the public
    // route's NOT_FOUND (GetStylePreview), never a broken entry users are shown a link to.
    if (input.previewAssetId) await previews.requireReady(input.previewAssetId);
    const { style, created } = await insertOrUpdateStyle(pool, uuidv7(), input);
    // The upsert is one autocommitted statement: it has committed when it answers.
    announceChange({ kind: 'style', id: style.id });
    return { style: toStyleMessage(style), created };
  };
}
