import { JOB_TYPE_PATTERN_SOURCE } from '@atelier/job-types';
import { defineEntity, p } from '@atelier/orm';
import { MAX_MODEL_DISPLAY_NAME_LENGTH, MAX_MODEL_VERSION_LENGTH, MAX_PROVIDER_MODEL_LENGTH } from '@atelier/validation';

/** catalog.models: the AI models a job can name, unique per code and media kind. */
export const ModelEntity = defineEntity({
  name: 'Model',
  tableName: 'models',
  properties: {
    id: p.uuid().primary(),
    code: p.string().length(64),
    displayName: p.string().length(MAX_MODEL_DISPLAY_NAME_LENGTH),
    providerCode: p.string().length(64),
    providerModel: p.string().length(MAX_PROVIDER_MODEL_LENGTH),
    modelVersion: p.string().length(MAX_MODEL_VERSION_LENGTH),
    mediaKind: p.string().length(16),
    jobType: p.string().length(64),
    enabled: p.boolean().default(true),
    sortOrder: p.integer().default(0),
    defaultParameters: p.json<Record<string, unknown>>().defaultRaw(`'{}'::jsonb`),
    displayNameI18n: p.json<Record<string, string>>().defaultRaw(`'{}'::jsonb`),
    credentialModes: p.array().columnType('text[]').defaultRaw(`'{platform_key}'`),
    createdAt: p.datetime().defaultRaw('now()'),
    updatedAt: p.datetime().defaultRaw('now()'),
  },
  uniques: [{ name: 'models_code_media_kind_key', properties: ['code', 'mediaKind'] }],
  indexes: [{ name: 'models_enabled_listing_idx', properties: ['mediaKind', 'sortOrder', 'id'], where: 'enabled' }],
  checks: [
    { name: 'models_code_format', expression: `code ~ '^[a-z0-9][a-z0-9_-]{1,63}$'` },
    { name: 'models_display_name_present', expression: `btrim(display_name) <> ''` },
    { name: 'models_provider_code_format', expression: `provider_code ~ '^[a-z][a-z0-9_-]{0,63}$'` },
    { name: 'models_provider_model_present', expression: `btrim(provider_model) <> ''` },
    { name: 'models_model_version_present', expression: `btrim(model_version) <> ''` },
    { name: 'models_media_kind_known', expression: `media_kind IN ('image', 'video')` },
    { name: 'models_job_type_format', expression: `job_type ~ '${JOB_TYPE_PATTERN_SOURCE}'` },
    { name: 'models_default_parameters_object', expression: `jsonb_typeof(default_parameters) = 'object'` },
    { name: 'models_display_name_i18n_object', expression: `jsonb_typeof(display_name_i18n) = 'object'` },
    { name: 'models_updated_after_created', expression: 'updated_at >= created_at' },
    {
      name: 'models_credential_modes_known',
      expression: `cardinality(credential_modes) >= 1 AND credential_modes <@ ARRAY['platform_key', 'user_key']::text[]`,
    },
  ],
});
