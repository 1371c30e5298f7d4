import { MAX_IMAGE_SIDE_PX, MIN_IMAGE_SIDE_PX } from '@atelier/images';
import { defineEntity, p } from '@atelier/orm';
import { MAX_IDEMPOTENCY_KEY_LENGTH, MAX_USER_ID_LENGTH } from '@atelier/validation';

/**
 * media.assets. The CHECKs tie each status to its timestamps and facts: a ready asset has its
 * hash and dimensions, a deleted one its deletion time; a `deleting` one (an owner's delete under
 * way) none. Ranges are written as the two comparisons
 * Postgres stores a BETWEEN as.
 */
export const AssetEntity = defineEntity({
  name: 'Asset',
  tableName: 'assets',
  properties: {
    id: p.uuid().primary(),
    ownerUserId: p.string().length(MAX_USER_ID_LENGTH),
    purpose: p.string().length(32),
    contentType: p.string().length(32),
    sizeBytes: p.bigint('number'),
    sha256: p.blob().nullable(),
    width: p.integer().nullable(),
    height: p.integer().nullable(),
    storageKey: p.string().length(256).unique('assets_storage_key_key'),
    status: p.string().length(16),
    uploadError: p.string().length(300).nullable(),
    idempotencyKey: p.string().length(MAX_IDEMPOTENCY_KEY_LENGTH).nullable(),
    createdAt: p.datetime().defaultRaw('now()'),
    readyAt: p.datetime().nullable(),
    deletedAt: p.datetime().nullable(),
  },
  uniques: [
    // A repeated server-side put with one key finds the first live asset.
    {
      name: 'assets_owner_idempotency_key',
      properties: ['ownerUserId', 'idempotencyKey'],
      where: `idempotency_key IS NOT NULL AND status <> 'deleted'`,
    },
  ],
  indexes: [
    { name: 'assets_stale_uploads_idx', properties: ['createdAt'], where: `status = 'uploading'` },
    // Raw DDL as Postgres prints it: MikroORM 7.2 reads `id DESC` after a column named `…_id`
    // back as ascending (see schemaDrift, @atelier/orm).
    {
      name: 'assets_owner_created_idx',
      expression: 'CREATE INDEX assets_owner_created_idx ON media.assets USING btree (owner_user_id, created_at DESC, id DESC)',
    },
    // The owner's gallery of one purpose, newest first (ListAssets; 0003-owner-gallery-and-deleting).
    {
      name: 'assets_owner_purpose_created_idx',
      expression:
        "CREATE INDEX assets_owner_purpose_created_idx ON media.assets USING btree (owner_user_id, purpose, created_at DESC, id DESC) WHERE ((status)::text <> 'deleted'::text)",
    },
    // A failed or cancelled job's output, found by the job id alone (its idempotency key).
    { name: 'assets_ai_output_job_idx', properties: ['idempotencyKey'], where: `purpose = 'ai_output' AND status <> 'deleted'` },
  ],
  checks: [
    { name: 'assets_owner_present', expression: `owner_user_id <> ''` },
    {
      name: 'assets_purpose_known',
      expression: `purpose IN ('post_image', 'user_avatar', 'pet_avatar', 'ai_input', 'ai_output')`,
    },
    { name: 'assets_content_type_known', expression: `content_type IN ('image/png', 'image/jpeg', 'image/webp')` },
    { name: 'assets_size_range', expression: 'size_bytes >= 1 AND size_bytes <= 20971520' },
    { name: 'assets_sha256_length', expression: 'octet_length(sha256) = 32' },
    { name: 'assets_width_range', expression: `width >= ${MIN_IMAGE_SIDE_PX} AND width <= ${MAX_IMAGE_SIDE_PX}` },
    { name: 'assets_height_range', expression: `height >= ${MIN_IMAGE_SIDE_PX} AND height <= ${MAX_IMAGE_SIDE_PX}` },
    { name: 'assets_status_known', expression: `status IN ('uploading', 'ready', 'deleting', 'deleted')` },
    {
      name: 'assets_status_timestamps',
      expression: `(status = 'uploading' AND ready_at IS NULL AND deleted_at IS NULL)
        OR (status = 'ready' AND ready_at IS NOT NULL AND deleted_at IS NULL
          AND sha256 IS NOT NULL AND width IS NOT NULL AND height IS NOT NULL)
        OR (status = 'deleting' AND deleted_at IS NULL)
        OR (status = 'deleted' AND deleted_at IS NOT NULL)`,
    },
    { name: 'assets_ready_after_created', expression: 'ready_at IS NULL OR ready_at >= created_at' },
    { name: 'assets_deleted_after_created', expression: 'deleted_at IS NULL OR deleted_at >= created_at' },
  ],
});
