import { defineEntity, p, type InferEntity } from '@atelier/db';

/** A row of catalog.models. The table itself is defined by the migrations. */
export const ModelEntity = defineEntity({
  name: 'Model',
  tableName: 'models',
  properties: {
    id: p.uuid().primary(),
    code: p.string(),
    displayName: p.string(),
    providerCode: p.string(),
    providerModel: p.string(),
    modelVersion: p.string(),
    mediaKind: p.string(),
    jobType: p.string(),
    enabled: p.boolean(),
    sortOrder: p.integer(),
    defaultParameters: p.json<Record<string, unknown>>(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type Model = InferEntity<typeof ModelEntity>;

/** A row of catalog.styles. */
export const StyleEntity = defineEntity({
  name: 'Style',
  tableName: 'styles',
  properties: {
    id: p.uuid().primary(),
    code: p.string(),
    title: p.string(),
    subtitle: p.string(),
    mediaKind: p.string(),
    previewAssetId: p.uuid().nullable(),
    promptPreset: p.string(),
    enabled: p.boolean(),
    sortOrder: p.integer(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type Style = InferEntity<typeof StyleEntity>;
