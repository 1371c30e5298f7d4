import type { catalogV1 } from '@atelier/contracts';
import { uuidv7 } from '@atelier/db';
import type { Handler } from '@atelier/grpc';
import type { CatalogContext } from '../catalog-context.js';
import { StyleEntity } from '../db/entities.js';
import { validateStyleInput } from '../domain/catalog-rules.js';
import { toStyleMessage } from '../mappers.js';

type UpsertStyle = Handler<typeof catalogV1.CatalogServiceService.upsertStyle>;

/** Same single-statement upsert as models (see upsert-model.ts). */
const UPSERT_STYLE_SQL = `
  INSERT INTO catalog.styles AS s
    (id, code, media_kind, title, subtitle, preview_asset_id, prompt_preset, enabled, sort_order)
  VALUES (?, ?, ?, ?, ?, ?::uuid, ?, COALESCE(?::boolean, true), ?)
  ON CONFLICT (code, media_kind) DO UPDATE SET
    title            = EXCLUDED.title,
    subtitle         = EXCLUDED.subtitle,
    preview_asset_id = EXCLUDED.preview_asset_id,
    prompt_preset    = EXCLUDED.prompt_preset,
    enabled          = COALESCE(?::boolean, s.enabled),
    sort_order       = EXCLUDED.sort_order,
    updated_at       = now()
  RETURNING id, (xmax = 0) AS created`;

export function upsertStyle({ orm }: CatalogContext): UpsertStyle {
  return async (request) => {
    const input = validateStyleInput(request);
    const em = orm.em.fork();
    const enabled = input.enabled ?? null;
    const [row] = await em.execute<{ id: string; created: boolean }[]>(UPSERT_STYLE_SQL, [
      uuidv7(),
      input.code,
      input.mediaKind,
      input.title,
      input.subtitle,
      input.previewAssetId,
      input.promptPreset,
      enabled,
      input.sortOrder,
      enabled,
    ]);
    const style = await em.findOneOrFail(StyleEntity, { id: row!.id });
    return { style: toStyleMessage(style), created: row!.created };
  };
}
