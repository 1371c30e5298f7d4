import type { catalogV1 } from '@atelier/contracts';
import { uuidv7 } from '@atelier/db';
import type { Handler } from '@atelier/grpc';
import type { CatalogContext } from '../catalog-context.js';
import { ModelEntity } from '../db/entities.js';
import { validateModelInput } from '../domain/catalog-rules.js';
import { toModelMessage } from '../mappers.js';

type UpsertModel = Handler<typeof catalogV1.CatalogServiceService.upsertModel>;

/**
 * One statement decides insert-or-update on the (code, media_kind) key, so concurrent upserts of
 * the same entry cannot both insert. `xmax = 0` is true only for a freshly inserted row version.
 * An absent `enabled` keeps the current value (true for a new entry).
 */
const UPSERT_MODEL_SQL = `
  INSERT INTO catalog.models AS m
    (id, code, media_kind, display_name, provider_code, provider_model, model_version, job_type,
     enabled, sort_order, default_parameters)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, COALESCE(?::boolean, true), ?, ?::jsonb)
  ON CONFLICT (code, media_kind) DO UPDATE SET
    display_name       = EXCLUDED.display_name,
    provider_code      = EXCLUDED.provider_code,
    provider_model     = EXCLUDED.provider_model,
    model_version      = EXCLUDED.model_version,
    job_type           = EXCLUDED.job_type,
    enabled            = COALESCE(?::boolean, m.enabled),
    sort_order         = EXCLUDED.sort_order,
    default_parameters = EXCLUDED.default_parameters,
    updated_at         = now()
  RETURNING id, (xmax = 0) AS created`;

export function upsertModel({ orm }: CatalogContext): UpsertModel {
  return async (request) => {
    const input = validateModelInput(request);
    const em = orm.em.fork();
    const enabled = input.enabled ?? null;
    const [row] = await em.execute<{ id: string; created: boolean }[]>(UPSERT_MODEL_SQL, [
      uuidv7(),
      input.code,
      input.mediaKind,
      input.displayName,
      input.providerCode,
      input.providerModel,
      input.modelVersion,
      input.jobType,
      enabled,
      input.sortOrder,
      JSON.stringify(input.defaultParameters),
      enabled,
    ]);
    const model = await em.findOneOrFail(ModelEntity, { id: row!.id });
    return { model: toModelMessage(model), created: row!.created };
  };
}
