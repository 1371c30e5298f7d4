import { Migration } from '@atelier/orm';

/**
 * The owner's gallery and the owner's delete.
 *
 * - `deleting`: an owner's delete marks the asset first (a CAS from uploading/ready), then asks
 *   jobs and community whether anything still uses it, then removes object and row — or puts the
 *   asset back as it was. While `deleting`, no new job or post accepts it (neither is `ready`).
 *   Like `uploading` and `ready`, it has no deletion time: the row is removed, not marked.
 * - ListAssets by purpose: the owner's live assets of one purpose, newest first, read with a
 *   (created_at, id) keyset. Without a purpose the baseline's assets_owner_created_idx serves.
 */
export class OwnerGalleryAndDeleting extends Migration {
  override up(): void {
    this.addSql(`ALTER TABLE media.assets DROP CONSTRAINT assets_status_known`);
    this.addSql(`
      ALTER TABLE media.assets ADD CONSTRAINT assets_status_known
        CHECK (status IN ('uploading', 'ready', 'deleting', 'deleted'))`);
    this.addSql(`ALTER TABLE media.assets DROP CONSTRAINT assets_status_timestamps`);
    this.addSql(`
      ALTER TABLE media.assets ADD CONSTRAINT assets_status_timestamps CHECK (
           (status = 'uploading' AND ready_at IS NULL AND deleted_at IS NULL)
        OR (status = 'ready' AND ready_at IS NOT NULL AND deleted_at IS NULL
            AND sha256 IS NOT NULL AND width IS NOT NULL AND height IS NOT NULL)
        OR (status = 'deleting' AND deleted_at IS NULL)
        OR (status = 'deleted' AND deleted_at IS NOT NULL))`);
    this.addSql(`
      CREATE INDEX assets_owner_purpose_created_idx ON media.assets (owner_user_id, purpose, created_at DESC, id DESC)
        WHERE status <> 'deleted'`);
  }
}
