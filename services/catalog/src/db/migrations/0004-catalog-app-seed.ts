import { Migration } from '@atelier/orm';

/**
 * The catalog the app already shows: the style and model codes, titles and names of its own
 * built-in copy, so that an app that switches from that copy to this catalog changes no text. The
 * app shows an English subtitle under the Chinese title, so a style's subtitle is the same in both
 * languages; model names are brand names, the same in both. No style has a preview
 * (preview_asset_id NULL): the app shows its built-in image for the style's code while the
 * catalog's previewUrl is null, and a migration cannot store image bytes anyway.
 *
 * The app's `3d` starts with a digit, which the code CHECKs of 0001 refused: a code may now start
 * with a letter or a digit (catalog-rules.ts holds the same rule for writes).
 *
 * Every other image model and style is disabled, not deleted: jobs keep the ids and snapshots of
 * the entries they ran with, and an operator may enable one again. That includes the upscaler
 * 0002 seeded (the app offers no upscale). An entry of the same code and kind already there —
 * 0002's watercolor, or one an operator created — is brought to the app's copy, keeping its id
 * (watercolor's id below is 0002's, so that a database without it gets the same one).
 */
export class CatalogAppSeed extends Migration {
  override up(): void {
    this.addSql(`
      ALTER TABLE catalog.models
        DROP CONSTRAINT models_code_format,
        ADD CONSTRAINT models_code_format CHECK (code ~ '^[a-z0-9][a-z0-9_-]{1,63}$')`);
    this.addSql(`
      ALTER TABLE catalog.styles
        DROP CONSTRAINT styles_code_format,
        ADD CONSTRAINT styles_code_format CHECK (code ~ '^[a-z0-9][a-z0-9_-]{1,63}$')`);
    this.addSql(`
      INSERT INTO catalog.models AS m
        (id, code, display_name, display_name_i18n, provider_code, provider_model, model_version, media_kind, job_type, enabled, sort_order, default_parameters)
      VALUES
        ('019a0000-0000-7000-8000-000000000201', 'patbond-v1', 'Patbond-V1', '{"zh-CN": "Patbond-V1"}', 'sim', 'sim-patbond-v1', '1.0', 'image', 'image.stylize', true, 10, '{"strength": 0.8}'),
        ('019a0000-0000-7000-8000-000000000202', 'pet-art-pro', 'Pet-Art Pro', '{"zh-CN": "Pet-Art Pro"}', 'sim', 'sim-pet-art-pro', '1.0', 'image', 'image.stylize', true, 20, '{"strength": 0.9}'),
        ('019a0000-0000-7000-8000-000000000203', 'cute-motion', 'Cute Motion', '{"zh-CN": "Cute Motion"}', 'sim', 'sim-cute-motion', '1.0', 'image', 'image.stylize', true, 30, '{"strength": 0.6}')
      ON CONFLICT (code, media_kind) DO UPDATE SET
        display_name = EXCLUDED.display_name, display_name_i18n = EXCLUDED.display_name_i18n,
        provider_code = EXCLUDED.provider_code, provider_model = EXCLUDED.provider_model, model_version = EXCLUDED.model_version,
        job_type = EXCLUDED.job_type, enabled = true, sort_order = EXCLUDED.sort_order,
        default_parameters = EXCLUDED.default_parameters, updated_at = GREATEST(now(), m.created_at)`);
    this.addSql(`
      INSERT INTO catalog.styles AS s
        (id, code, title, title_i18n, subtitle, subtitle_i18n, media_kind, preview_asset_id, prompt_preset, enabled, sort_order)
      VALUES
        ('019a0000-0000-7000-8000-000000000211', 'healing', 'Healing Anime', '{"zh-CN": "治愈动画"}', 'Healing', '{"zh-CN": "Healing"}', 'image', NULL,
         'a soft, heartwarming anime illustration in gentle pastel colours', true, 10),
        ('019a0000-0000-7000-8000-000000000212', '3d', '3D Cartoon', '{"zh-CN": "3D 卡通"}', '3D Cartoon', '{"zh-CN": "3D Cartoon"}', 'image', NULL,
         'a cute 3D cartoon character render with soft studio lighting', true, 20),
        ('019a0000-0000-7000-8000-000000000213', 'comic', 'Comic', '{"zh-CN": "漫画风"}', 'Comic', '{"zh-CN": "Comic"}', 'image', NULL,
         'a comic book panel with bold ink outlines and flat colours', true, 30),
        ('019a0000-0000-7000-8000-000000000101', 'watercolor', 'Watercolor', '{"zh-CN": "水彩"}', 'Watercolor', '{"zh-CN": "Watercolor"}', 'image', NULL,
         'a gentle watercolor painting', true, 40)
      ON CONFLICT (code, media_kind) DO UPDATE SET
        title = EXCLUDED.title, title_i18n = EXCLUDED.title_i18n, subtitle = EXCLUDED.subtitle, subtitle_i18n = EXCLUDED.subtitle_i18n,
        preview_asset_id = NULL, prompt_preset = EXCLUDED.prompt_preset, enabled = true, sort_order = EXCLUDED.sort_order,
        updated_at = GREATEST(now(), s.created_at)`);
    this.addSql(`
      UPDATE catalog.models SET enabled = false, updated_at = GREATEST(now(), created_at)
       WHERE media_kind = 'image' AND enabled AND code NOT IN ('patbond-v1', 'pet-art-pro', 'cute-motion')`);
    this.addSql(`
      UPDATE catalog.styles SET enabled = false, updated_at = GREATEST(now(), created_at)
       WHERE media_kind = 'image' AND enabled AND code NOT IN ('healing', '3d', 'comic', 'watercolor')`);
  }
}
