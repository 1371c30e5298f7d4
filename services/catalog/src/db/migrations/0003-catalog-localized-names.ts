import { Migration } from '@atelier/orm';

/**
 * Localized display names: each name column gets a jsonb companion holding the name in other
 * languages by BCP 47 tag (`{"zh-CN": "水彩"}`); the plain column stays the English name and the
 * fallback for a language without an entry. A jsonb object beside the row, rather than a
 * translation table, because the catalog is read whole and small, a name is never looked up by
 * its translation, and an upsert replaces an entry's names in the same one statement. The CHECKs
 * keep it an object (the shape of each value is the service's rule, catalog-rules.ts). Seeds the
 * Simplified Chinese names of the models and styles 0002 seeded, by their fixed ids.
 */
export class CatalogLocalizedNames extends Migration {
  override up(): void {
    this.addSql(`
      ALTER TABLE catalog.models
        ADD COLUMN display_name_i18n jsonb NOT NULL DEFAULT '{}'::jsonb
          CONSTRAINT models_display_name_i18n_object CHECK (jsonb_typeof(display_name_i18n) = 'object')`);
    this.addSql(`
      ALTER TABLE catalog.styles
        ADD COLUMN title_i18n jsonb NOT NULL DEFAULT '{}'::jsonb
          CONSTRAINT styles_title_i18n_object CHECK (jsonb_typeof(title_i18n) = 'object'),
        ADD COLUMN subtitle_i18n jsonb NOT NULL DEFAULT '{}'::jsonb
          CONSTRAINT styles_subtitle_i18n_object CHECK (jsonb_typeof(subtitle_i18n) = 'object')`);
    this.addSql(`
      UPDATE catalog.models AS m SET display_name_i18n = jsonb_build_object('zh-CN', v.name)
        FROM (VALUES
          ('019a0000-0000-7000-8000-000000000001'::uuid, 'Atelier 风格化'),
          ('019a0000-0000-7000-8000-000000000002'::uuid, 'Atelier 快速风格化'),
          ('019a0000-0000-7000-8000-000000000003'::uuid, 'Atelier 超分辨率放大')
        ) AS v(id, name)
       WHERE m.id = v.id AND m.display_name_i18n = '{}'::jsonb`);
    this.addSql(`
      UPDATE catalog.styles AS s SET title_i18n = jsonb_build_object('zh-CN', v.title), subtitle_i18n = jsonb_build_object('zh-CN', v.subtitle)
        FROM (VALUES
          ('019a0000-0000-7000-8000-000000000101'::uuid, '水彩', '柔和的水彩晕染'),
          ('019a0000-0000-7000-8000-000000000102'::uuid, '像素风', '复古的大颗像素'),
          ('019a0000-0000-7000-8000-000000000103'::uuid, '铅笔素描', '纸上的石墨笔触'),
          ('019a0000-0000-7000-8000-000000000104'::uuid, '波普艺术', '大胆的平涂色彩'),
          ('019a0000-0000-7000-8000-000000000105'::uuid, '复古照片', '温暖的棕褐色调')
        ) AS v(id, title, subtitle)
       WHERE s.id = v.id AND s.title_i18n = '{}'::jsonb`);
  }
}
