import { Migration } from '@atelier/orm';

/**
 * media.assets. The CHECKs tie each status to its timestamps and facts: a ready asset always
 * has its hash and dimensions, a deleted one its deletion time. Server-written assets may carry
 * an idempotency key, unique per owner among live assets, so a repeated put finds the first.
 */
export class MediaBaseline extends Migration {
  override up(): void {
    this.addSql(`
      CREATE TABLE media.assets (
        id              uuid         PRIMARY KEY,
        owner_user_id   varchar(128) NOT NULL CONSTRAINT assets_owner_present CHECK (owner_user_id <> ''),
        purpose         varchar(32)  NOT NULL
                        CONSTRAINT assets_purpose_known CHECK (purpose IN ('post_image', 'user_avatar', 'pet_avatar', 'ai_input', 'ai_output')),
        content_type    varchar(32)  NOT NULL
                        CONSTRAINT assets_content_type_known CHECK (content_type IN ('image/png', 'image/jpeg', 'image/webp')),
        size_bytes      bigint       NOT NULL CONSTRAINT assets_size_range CHECK (size_bytes BETWEEN 1 AND 20971520),
        sha256          bytea        CONSTRAINT assets_sha256_length CHECK (octet_length(sha256) = 32),
        width           integer      CONSTRAINT assets_width_range CHECK (width BETWEEN 64 AND 8192),
        height          integer      CONSTRAINT assets_height_range CHECK (height BETWEEN 64 AND 8192),
        storage_key     varchar(256) NOT NULL CONSTRAINT assets_storage_key_key UNIQUE,
        status          varchar(16)  NOT NULL CONSTRAINT assets_status_known CHECK (status IN ('uploading', 'ready', 'deleted')),
        upload_error    varchar(300),
        idempotency_key varchar(128),
        created_at      timestamptz  NOT NULL DEFAULT now(),
        ready_at        timestamptz,
        deleted_at      timestamptz,
        CONSTRAINT assets_status_timestamps CHECK (
             (status = 'uploading' AND ready_at IS NULL AND deleted_at IS NULL)
          OR (status = 'ready' AND ready_at IS NOT NULL AND deleted_at IS NULL
              AND sha256 IS NOT NULL AND width IS NOT NULL AND height IS NOT NULL)
          OR (status = 'deleted' AND deleted_at IS NOT NULL)),
        CONSTRAINT assets_ready_after_created CHECK (ready_at IS NULL OR ready_at >= created_at),
        CONSTRAINT assets_deleted_after_created CHECK (deleted_at IS NULL OR deleted_at >= created_at)
      )`);
    this.addSql(`
      CREATE UNIQUE INDEX assets_owner_idempotency_key ON media.assets (owner_user_id, idempotency_key)
        WHERE idempotency_key IS NOT NULL AND status <> 'deleted'`);
    this.addSql(`CREATE INDEX assets_stale_uploads_idx ON media.assets (created_at) WHERE status = 'uploading'`);
    this.addSql(`CREATE INDEX assets_owner_created_idx ON media.assets (owner_user_id, created_at DESC, id DESC)`);
  }
}
