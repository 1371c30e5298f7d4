import type { catalogV1 } from '@atelier/contracts';
import { uuidv7 } from '@atelier/db';
import type { Handler } from '@atelier/grpc';
import { auditedChange, requireOperatorActor } from '@atelier/operator-audit';
import type { CatalogContext } from '../catalog-context.js';
import { insertOrUpdateStyle, lockStyle } from '../db/catalog-sql.js';
import { validateStyleInput } from '../domain/catalog-rules.js';
import { toStyleMessage } from './catalog-mapper.js';
import { entrySnapshot, styleTarget } from './catalog-audit.js';

type UpsertStyle = Handler<typeof catalogV1.CatalogServiceService.upsertStyle>;

/**
 * Creates or replaces the style with this (code, media_kind), atomically, with its audit entry
 * in the same transaction; its preview must be a ready media asset.
 */
export function upsertStyle({ pool, announceChange, previews }: CatalogContext): UpsertStyle {
  return async (request) => {
    const input = validateStyleInput(request);
    const actor = requireOperatorActor(request.actor);
    // Checked before the write, not under a lock: an asset deleted afterwards is the public
    // route's NOT_FOUND (GetStylePreview), never a broken entry users are shown a link to.
    if (input.previewAssetId) await previews.requireReady(input.previewAssetId);
    const audited = { action: 'catalog.style.upsert', actor, target: styleTarget(input.code) };
    const { style, created } = await auditedChange(pool, 'catalog', audited, async (tx) => {
      const before = await lockStyle(tx, { code: input.code, mediaKind: input.mediaKind });
      const upserted = await insertOrUpdateStyle(tx, uuidv7(), input);
      return { result: upserted, before: entrySnapshot(before), after: entrySnapshot(upserted.style) };
    });
    announceChange({ kind: 'style', id: style.id });
    return { style: toStyleMessage(style), created };
  };
}
