import { defineEntity, p, type InferEntity } from '@atelier/db';

/** A row of media.assets. The table itself is defined by the migrations. */
export const AssetEntity = defineEntity({
  name: 'Asset',
  tableName: 'assets',
  properties: {
    id: p.uuid().primary(),
    ownerUserId: p.string(),
    purpose: p.string(),
    contentType: p.string(),
    sizeBytes: p.bigint('number'),
    sha256: p.blob().nullable(),
    width: p.integer().nullable(),
    height: p.integer().nullable(),
    storageKey: p.string(),
    status: p.string(),
    uploadError: p.string().nullable(),
    idempotencyKey: p.string().nullable(),
    createdAt: p.datetime(),
    readyAt: p.datetime().nullable(),
    deletedAt: p.datetime().nullable(),
  },
});
export type Asset = InferEntity<typeof AssetEntity>;
