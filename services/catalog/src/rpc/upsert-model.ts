import type { catalogV1 } from '@atelier/contracts';
import { uuidv7 } from '@atelier/db';
import type { Handler } from '@atelier/grpc';
import type { CatalogContext } from '../catalog-context.js';
import { insertOrUpdateModel } from '../db/catalog-sql.js';
import { validateModelInput } from '../domain/catalog-rules.js';
import { toModelMessage } from './catalog-mapper.js';

type UpsertModel = Handler<typeof catalogV1.CatalogServiceService.upsertModel>;

/** Creates or replaces the model with this (code, media_kind), atomically. */
export function upsertModel({ pool, announceChange }: CatalogContext): UpsertModel {
  return async (request) => {
    const { model, created } = await insertOrUpdateModel(pool, uuidv7(), validateModelInput(request));
    // The upsert is one autocommitted statement: it has committed when it answers.
    announceChange({ kind: 'model', id: model.id });
    return { model: toModelMessage(model), created };
  };
}
