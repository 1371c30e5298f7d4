import type { catalogV1 } from '@atelier/contracts';
import { uuidv7 } from '@atelier/db';
import type { Handler } from '@atelier/grpc';
import type { CatalogContext } from '../catalog-context.js';
import * as catalog from '../db/catalog-repository.js';
import { validateModelInput } from '../domain/catalog-rules.js';
import { toModelMessage } from '../mappers.js';

type UpsertModel = Handler<typeof catalogV1.CatalogServiceService.upsertModel>;

/** Creates or replaces the model with this (code, media_kind), atomically. */
export function upsertModel({ pool, announceChange }: CatalogContext): UpsertModel {
  return async (request) => {
    const { model, created } = await catalog.upsertModel(pool, uuidv7(), validateModelInput(request));
    // The upsert is one autocommitted statement: it has committed when it answers.
    announceChange({ kind: 'model', id: model.id });
    return { model: toModelMessage(model), created };
  };
}
