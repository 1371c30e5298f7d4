import type { EntityManager } from '@atelier/db';
import { AssetEntity, type Asset } from './entities.js';
import type { StoredPurpose } from '../domain/asset-rules.js';
import type { ImageFacts } from '@atelier/images';

export interface NewAsset {
  id: string;
  ownerUserId: string;
  purpose: StoredPurpose;
  contentType: string;
  sizeBytes: number;
  storageKey: string;
  idempotencyKey: string | null;
}

/** Where an asset's bytes live in the bucket. Derived from the id only: no user data in keys. */
export function storageKeyFor(assetId: string): string {
  return `assets/${assetId}`;
}

export async function findAsset(em: EntityManager, id: string): Promise<Asset | null> {
  return em.fork().findOne(AssetEntity, { id });
}

function mapped(em: EntityManager, rows: Record<string, unknown>[]): Asset | null {
  return rows[0] ? em.map(AssetEntity, rows[0]) : null;
}

/**
 * Inserts an `uploading` asset. For server puts with an idempotency key, a concurrent or earlier
 * live asset with the same owner and key wins: nothing is inserted and null is returned.
 */
export async function insertUploading(em: EntityManager, asset: NewAsset): Promise<Asset | null> {
  const rows = await em.execute(
    `INSERT INTO media.assets (id, owner_user_id, purpose, content_type, size_bytes, storage_key, status, idempotency_key)
     VALUES (?, ?, ?, ?, ?, ?, 'uploading', ?)
     ON CONFLICT (owner_user_id, idempotency_key) WHERE idempotency_key IS NOT NULL AND status <> 'deleted' DO NOTHING
     RETURNING *`,
    [asset.id, asset.ownerUserId, asset.purpose, asset.contentType, asset.sizeBytes, asset.storageKey, asset.idempotencyKey],
  );
  return mapped(em, rows);
}

export async function findLiveByIdempotencyKey(em: EntityManager, ownerUserId: string, key: string): Promise<Asset | null> {
  return em.fork().findOne(AssetEntity, { ownerUserId, idempotencyKey: key, status: { $ne: 'deleted' } });
}

/** uploading → ready, once: a second completer gets null and re-reads the winner's row. */
export async function markReady(em: EntityManager, id: string, facts: ImageFacts, sha256: Buffer): Promise<Asset | null> {
  const rows = await em.execute(
    `UPDATE media.assets
        SET status = 'ready', sha256 = ?, width = ?, height = ?, ready_at = now(), upload_error = NULL
      WHERE id = ? AND status = 'uploading'
      RETURNING *`,
    [sha256, facts.width, facts.height, id],
  );
  return mapped(em, rows);
}

/** Remembers why a completion was refused, for the owner's next look and for operators. */
export async function recordUploadError(em: EntityManager, id: string, error: string): Promise<void> {
  await em.execute(`UPDATE media.assets SET upload_error = ? WHERE id = ? AND status = 'uploading'`, [error.slice(0, 300), id]);
}

/** Any live status → deleted, once. */
export async function markDeleted(em: EntityManager, id: string): Promise<Asset | null> {
  const rows = await em.execute(
    `UPDATE media.assets SET status = 'deleted', deleted_at = now() WHERE id = ? AND status <> 'deleted' RETURNING *`,
    [id],
  );
  return mapped(em, rows);
}
