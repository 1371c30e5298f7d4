import type { MicrosPageCursor } from '@atelier/encoding';
import type { Queryable } from '@atelier/db';
import { toAsset, type Asset, type AssetRow } from './asset-sql.js';

export type GalleryAsset = Asset & { createdMicros: string };

/**
 * One page of an owner's gallery after the cursor, newest first in (created_at DESC, id DESC),
 * with one extra row to know whether another page follows. Deleted assets (the tombstones of
 * deletes, see owner-delete-sql.ts) are left out; `deleting` ones are listed so that a delete
 * cut short can be asked again. A keyset, not an offset: an asset created while the owner pages
 * sorts before the cursor, so no page repeats or skips a row. With a purpose the page runs on
 * assets_owner_purpose_created_idx (0003), without on assets_owner_created_idx (0001): one named
 * statement per shape, so each keeps a plan on its index.
 */
export async function selectGalleryPage(
  db: Queryable,
  ownerUserId: string,
  purpose: string | null,
  cursor: MicrosPageCursor | undefined,
  limit: number,
): Promise<GalleryAsset[]> {
  const values: unknown[] = [ownerUserId];
  const conditions = ['owner_user_id = $1', `status <> 'deleted'`];
  if (purpose !== null) {
    values.push(purpose);
    conditions.push(`purpose = $${values.length}`);
  }
  if (cursor) {
    values.push(cursor.createdMicros, cursor.id);
    conditions.push(
      `(created_at, id) < ('epoch'::timestamptz + $${values.length - 1}::bigint * interval '1 microsecond', $${values.length}::uuid)`,
    );
  }
  values.push(limit + 1);
  const result = await db.query<AssetRow & { created_micros: string }>({
    name: `media.gallery${purpose !== null ? '_by_purpose' : ''}${cursor ? '_after' : ''}`,
    text: `SELECT *, (extract(epoch FROM created_at) * 1000000)::bigint::text AS created_micros
             FROM media.assets WHERE ${conditions.join(' AND ')}
            ORDER BY created_at DESC, id DESC LIMIT $${values.length}`,
    values,
  });
  return result.rows.map((row) => ({ ...toAsset(row)!, createdMicros: row.created_micros }));
}
