import { Migration } from '@atelier/orm';

/**
 * The catalog tables. Codes are unique per media kind; CHECKs keep codes, names and kinds
 * well-formed even when someone writes SQL by hand. The partial index serves GetCatalog, which
 * only ever reads enabled entries of one kind in display order.
 */
export class CatalogBaseline extends Migration {
  override up(): void {
    this.addSql(`
      CREATE TABLE catalog.models (
        id                 uuid         PRIMARY KEY,
        code               varchar(64)  NOT NULL CONSTRAINT models_code_format CHECK (code ~ '^[a-z][a-z0-9_-]{1,63}$'),
        display_name       varchar(120) NOT NULL CONSTRAINT models_display_name_present CHECK (btrim(display_name) <> ''),
        provider_code      varchar(64)  NOT NULL CONSTRAINT models_provider_code_format CHECK (provider_code ~ '^[a-z][a-z0-9_-]{0,63}$'),
        provider_model     varchar(128) NOT NULL CONSTRAINT models_provider_model_present CHECK (btrim(provider_model) <> ''),
        model_version      varchar(64)  NOT NULL CONSTRAINT models_model_version_present CHECK (btrim(model_version) <> ''),
        media_kind         varchar(16)  NOT NULL CONSTRAINT models_media_kind_known CHECK (media_kind IN ('image', 'video')),
        job_type           varchar(64)  NOT NULL CONSTRAINT models_job_type_format CHECK (job_type ~ '^[a-z][a-z0-9_.]{1,63}$'),
        enabled            boolean      NOT NULL DEFAULT true,
        sort_order         integer      NOT NULL DEFAULT 0,
        default_parameters jsonb        NOT NULL DEFAULT '{}'::jsonb
                                        CONSTRAINT models_default_parameters_object CHECK (jsonb_typeof(default_parameters) = 'object'),
        created_at         timestamptz  NOT NULL DEFAULT now(),
        updated_at         timestamptz  NOT NULL DEFAULT now(),
        CONSTRAINT models_code_media_kind_key UNIQUE (code, media_kind),
        CONSTRAINT models_updated_after_created CHECK (updated_at >= created_at)
      )`);
    this.addSql(`CREATE INDEX models_enabled_listing_idx ON catalog.models (media_kind, sort_order, id) WHERE enabled`);
    this.addSql(`
      CREATE TABLE catalog.styles (
        id               uuid          PRIMARY KEY,
        code             varchar(64)   NOT NULL CONSTRAINT styles_code_format CHECK (code ~ '^[a-z][a-z0-9_-]{1,63}$'),
        title            varchar(80)   NOT NULL CONSTRAINT styles_title_present CHECK (btrim(title) <> ''),
        subtitle         varchar(200)  NOT NULL DEFAULT '',
        media_kind       varchar(16)   NOT NULL CONSTRAINT styles_media_kind_known CHECK (media_kind IN ('image', 'video')),
        preview_asset_id uuid,
        prompt_preset    varchar(2000) NOT NULL DEFAULT '',
        enabled          boolean       NOT NULL DEFAULT true,
        sort_order       integer       NOT NULL DEFAULT 0,
        created_at       timestamptz   NOT NULL DEFAULT now(),
        updated_at       timestamptz   NOT NULL DEFAULT now(),
        CONSTRAINT styles_code_media_kind_key UNIQUE (code, media_kind),
        CONSTRAINT styles_updated_after_created CHECK (updated_at >= created_at)
      )`);
    this.addSql(`CREATE INDEX styles_enabled_listing_idx ON catalog.styles (media_kind, sort_order, id) WHERE enabled`);
  }
}
