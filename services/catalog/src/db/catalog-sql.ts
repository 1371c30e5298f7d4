import type { Queryable } from '@atelier/db';
import type { ModelInput, StyleInput } from '../domain/catalog-rules.js';

/** The SQL of catalog.models and catalog.styles, on a plain pg pool (tables: see migrations). */

export interface Model {
  id: string;
  code: string;
  displayName: string;
  providerCode: string;
  providerModel: string;
  modelVersion: string;
  mediaKind: string;
  jobType: string;
  enabled: boolean;
  sortOrder: number;
  defaultParameters: Record<string, unknown>;
  displayNameI18n: Record<string, string>;
  credentialModes: string[];
  createdAt: Date;
  updatedAt: Date;
}

export interface Style {
  id: string;
  code: string;
  title: string;
  subtitle: string;
  mediaKind: string;
  previewAssetId: string | null;
  promptPreset: string;
  enabled: boolean;
  sortOrder: number;
  titleI18n: Record<string, string>;
  subtitleI18n: Record<string, string>;
  createdAt: Date;
  updatedAt: Date;
}

const MODEL_COLUMNS = `id, code, display_name AS "displayName", provider_code AS "providerCode", provider_model AS "providerModel",
  model_version AS "modelVersion", media_kind AS "mediaKind", job_type AS "jobType", enabled, sort_order AS "sortOrder",
  default_parameters AS "defaultParameters", display_name_i18n AS "displayNameI18n", credential_modes AS "credentialModes",
  created_at AS "createdAt", updated_at AS "updatedAt"`;

const STYLE_COLUMNS = `id, code, title, subtitle, media_kind AS "mediaKind", preview_asset_id AS "previewAssetId",
  prompt_preset AS "promptPreset", enabled, sort_order AS "sortOrder", title_i18n AS "titleI18n",
  subtitle_i18n AS "subtitleI18n", created_at AS "createdAt", updated_at AS "updatedAt"`;

/** Enabled entries of one kind in display order (served by the partial `*_enabled_listing_idx`). */
export async function selectEnabledEntries(db: Queryable, mediaKind: string): Promise<{ models: Model[]; styles: Style[] }> {
  const [models, styles] = await Promise.all([
    db.query<Model>({
      name: 'catalog.enabled_models',
      text: `SELECT ${MODEL_COLUMNS} FROM catalog.models WHERE media_kind = $1 AND enabled ORDER BY sort_order, id`,
      values: [mediaKind],
    }),
    db.query<Style>({
      name: 'catalog.enabled_styles',
      text: `SELECT ${STYLE_COLUMNS} FROM catalog.styles WHERE media_kind = $1 AND enabled ORDER BY sort_order, id`,
      values: [mediaKind],
    }),
  ]);
  return { models: models.rows, styles: styles.rows };
}

/** Operators: everything of one kind (or every kind), disabled entries included. */
export async function selectAllEntries(db: Queryable, mediaKind: string | undefined): Promise<{ models: Model[]; styles: Style[] }> {
  const [models, styles] = await Promise.all([
    db.query<Model>({
      name: 'catalog.all_models',
      text: `SELECT ${MODEL_COLUMNS} FROM catalog.models WHERE $1::text IS NULL OR media_kind = $1 ORDER BY media_kind, sort_order, id`,
      values: [mediaKind ?? null],
    }),
    db.query<Style>({
      name: 'catalog.all_styles',
      text: `SELECT ${STYLE_COLUMNS} FROM catalog.styles WHERE $1::text IS NULL OR media_kind = $1 ORDER BY media_kind, sort_order, id`,
      values: [mediaKind ?? null],
    }),
  ]);
  return { models: models.rows, styles: styles.rows };
}

export async function selectModel(db: Queryable, id: string): Promise<Model | null> {
  const result = await db.query<Model>({
    name: 'catalog.find_model',
    text: `SELECT ${MODEL_COLUMNS} FROM catalog.models WHERE id = $1`,
    values: [id],
  });
  return result.rows[0] ?? null;
}

export async function selectStyle(db: Queryable, id: string): Promise<Style | null> {
  const result = await db.query<Style>({
    name: 'catalog.find_style',
    text: `SELECT ${STYLE_COLUMNS} FROM catalog.styles WHERE id = $1`,
    values: [id],
  });
  return result.rows[0] ?? null;
}

/**
 * The entry, locked until the caller's transaction ends: what an audited edit was made on (its
 * "before"), which no concurrent edit can change until the edit and its audit entry commit.
 */
export async function lockModel(db: Queryable, key: { id: string } | { code: string; mediaKind: string }): Promise<Model | null> {
  const result = await db.query<Model>(
    'id' in key
      ? { text: `SELECT ${MODEL_COLUMNS} FROM catalog.models WHERE id = $1 FOR UPDATE`, values: [key.id] }
      : {
          text: `SELECT ${MODEL_COLUMNS} FROM catalog.models WHERE code = $1 AND media_kind = $2 FOR UPDATE`,
          values: [key.code, key.mediaKind],
        },
  );
  return result.rows[0] ?? null;
}

/** As lockModel, for a style. */
export async function lockStyle(db: Queryable, key: { id: string } | { code: string; mediaKind: string }): Promise<Style | null> {
  const result = await db.query<Style>(
    'id' in key
      ? { text: `SELECT ${STYLE_COLUMNS} FROM catalog.styles WHERE id = $1 FOR UPDATE`, values: [key.id] }
      : {
          text: `SELECT ${STYLE_COLUMNS} FROM catalog.styles WHERE code = $1 AND media_kind = $2 FOR UPDATE`,
          values: [key.code, key.mediaKind],
        },
  );
  return result.rows[0] ?? null;
}

/**
 * One statement decides insert-or-update on the (code, media_kind) key, so concurrent upserts of
 * the same entry cannot both insert. `xmax = 0` is true only for a freshly inserted row version.
 * An absent `enabled` keeps the current value (true for a new entry). `now()` is the time the
 * transaction started, which can precede the created_at of a row a racing upsert inserted and
 * committed meanwhile: GREATEST keeps `updated_at >= created_at` (a CHECK) true.
 */
export async function insertOrUpdateModel(db: Queryable, id: string, input: ModelInput): Promise<{ model: Model; created: boolean }> {
  const result = await db.query<Model & { created: boolean }>({
    name: 'catalog.upsert_model',
    text: `INSERT INTO catalog.models AS m
             (id, code, media_kind, display_name, provider_code, provider_model, model_version, job_type,
              enabled, sort_order, default_parameters, display_name_i18n, credential_modes)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, COALESCE($9::boolean, true), $10, $11::jsonb, COALESCE($12::jsonb, '{}'::jsonb),
                   COALESCE($13::text[], '{platform_key}'))
           ON CONFLICT (code, media_kind) DO UPDATE SET
             display_name       = EXCLUDED.display_name,
             provider_code      = EXCLUDED.provider_code,
             provider_model     = EXCLUDED.provider_model,
             model_version      = EXCLUDED.model_version,
             job_type           = EXCLUDED.job_type,
             enabled            = COALESCE($9::boolean, m.enabled),
             sort_order         = EXCLUDED.sort_order,
             default_parameters = EXCLUDED.default_parameters,
             display_name_i18n  = COALESCE($12::jsonb, m.display_name_i18n),
             credential_modes   = COALESCE($13::text[], m.credential_modes),
             updated_at         = GREATEST(now(), m.created_at)
           RETURNING ${MODEL_COLUMNS}, (xmax = 0) AS created`,
    values: [
      id,
      input.code,
      input.mediaKind,
      input.displayName,
      input.providerCode,
      input.providerModel,
      input.modelVersion,
      input.jobType,
      input.enabled ?? null,
      input.sortOrder,
      JSON.stringify(input.defaultParameters),
      input.displayNameI18n === undefined ? null : JSON.stringify(input.displayNameI18n),
      input.credentialModes ?? null,
    ],
  });
  const { created, ...model } = result.rows[0]!;
  return { model, created };
}

/**
 * The same single-statement upsert as models. A translation map given replaces the entry's
 * (an absent one, NULL here, keeps it), like an absent `enabled`.
 */
export async function insertOrUpdateStyle(db: Queryable, id: string, input: StyleInput): Promise<{ style: Style; created: boolean }> {
  const result = await db.query<Style & { created: boolean }>({
    name: 'catalog.upsert_style',
    text: `INSERT INTO catalog.styles AS s
             (id, code, media_kind, title, subtitle, preview_asset_id, prompt_preset, enabled, sort_order, title_i18n, subtitle_i18n)
           VALUES ($1, $2, $3, $4, $5, $6::uuid, $7, COALESCE($8::boolean, true), $9,
                   COALESCE($10::jsonb, '{}'::jsonb), COALESCE($11::jsonb, '{}'::jsonb))
           ON CONFLICT (code, media_kind) DO UPDATE SET
             title            = EXCLUDED.title,
             subtitle         = EXCLUDED.subtitle,
             preview_asset_id = EXCLUDED.preview_asset_id,
             prompt_preset    = EXCLUDED.prompt_preset,
             enabled          = COALESCE($8::boolean, s.enabled),
             sort_order       = EXCLUDED.sort_order,
             title_i18n       = COALESCE($10::jsonb, s.title_i18n),
             subtitle_i18n    = COALESCE($11::jsonb, s.subtitle_i18n),
             updated_at       = GREATEST(now(), s.created_at)
           RETURNING ${STYLE_COLUMNS}, (xmax = 0) AS created`,
    values: [
      id,
      input.code,
      input.mediaKind,
      input.title,
      input.subtitle,
      input.previewAssetId,
      input.promptPreset,
      input.enabled ?? null,
      input.sortOrder,
      input.titleI18n === undefined ? null : JSON.stringify(input.titleI18n),
      input.subtitleI18n === undefined ? null : JSON.stringify(input.subtitleI18n),
    ],
  });
  const { created, ...style } = result.rows[0]!;
  return { style, created };
}

// Idempotent: updated_at moves only when the flag actually changes.
export async function updateModelEnabled(db: Queryable, id: string, enabled: boolean): Promise<Model | null> {
  const result = await db.query<Model>({
    name: 'catalog.set_model_enabled',
    text: `UPDATE catalog.models SET enabled = $2, updated_at = CASE WHEN enabled = $2 THEN updated_at ELSE GREATEST(now(), created_at) END
            WHERE id = $1 RETURNING ${MODEL_COLUMNS}`,
    values: [id, enabled],
  });
  return result.rows[0] ?? null;
}

export async function updateStyleEnabled(db: Queryable, id: string, enabled: boolean): Promise<Style | null> {
  const result = await db.query<Style>({
    name: 'catalog.set_style_enabled',
    text: `UPDATE catalog.styles SET enabled = $2, updated_at = CASE WHEN enabled = $2 THEN updated_at ELSE GREATEST(now(), created_at) END
            WHERE id = $1 RETURNING ${STYLE_COLUMNS}`,
    values: [id, enabled],
  });
  return result.rows[0] ?? null;
}
