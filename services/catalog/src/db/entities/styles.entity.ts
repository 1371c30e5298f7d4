import { defineEntity, p } from '@atelier/orm';
import { MAX_PROMPT_PRESET_LENGTH, MAX_STYLE_SUBTITLE_LENGTH, MAX_STYLE_TITLE_LENGTH } from '@atelier/validation';

/** catalog.styles: the styles a job can apply, unique per code and media kind. */
export const StyleEntity = defineEntity({
  name: 'Style',
  tableName: 'styles',
  properties: {
    id: p.uuid().primary(),
    code: p.string().length(64),
    title: p.string().length(MAX_STYLE_TITLE_LENGTH),
    subtitle: p.string().length(MAX_STYLE_SUBTITLE_LENGTH).default(''),
    mediaKind: p.string().length(16),
    previewAssetId: p.uuid().nullable(),
    promptPreset: p.string().length(MAX_PROMPT_PRESET_LENGTH).default(''),
    enabled: p.boolean().default(true),
    sortOrder: p.integer().default(0),
    titleI18n: p.json<Record<string, string>>().defaultRaw(`'{}'::jsonb`),
    subtitleI18n: p.json<Record<string, string>>().defaultRaw(`'{}'::jsonb`),
    createdAt: p.datetime().defaultRaw('now()'),
    updatedAt: p.datetime().defaultRaw('now()'),
  },
  uniques: [{ name: 'styles_code_media_kind_key', properties: ['code', 'mediaKind'] }],
  indexes: [{ name: 'styles_enabled_listing_idx', properties: ['mediaKind', 'sortOrder', 'id'], where: 'enabled' }],
  checks: [
    { name: 'styles_code_format', expression: `code ~ '^[a-z0-9][a-z0-9_-]{1,63}$'` },
    { name: 'styles_title_present', expression: `btrim(title) <> ''` },
    { name: 'styles_media_kind_known', expression: `media_kind IN ('image', 'video')` },
    { name: 'styles_title_i18n_object', expression: `jsonb_typeof(title_i18n) = 'object'` },
    { name: 'styles_subtitle_i18n_object', expression: `jsonb_typeof(subtitle_i18n) = 'object'` },
    { name: 'styles_updated_after_created', expression: 'updated_at >= created_at' },
  ],
});
