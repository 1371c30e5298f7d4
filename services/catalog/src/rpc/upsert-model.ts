import type { catalogV1 } from '@atelier/contracts';
import { uuidv7 } from '@atelier/db';
import type { Handler } from '@atelier/grpc';
import { auditedChange, requireOperatorActor } from '@atelier/operator-audit';
import type { CatalogContext } from '../catalog-context.js';
import { insertOrUpdateModel, lockModel } from '../db/catalog-sql.js';
import { validateModelInput } from '../domain/catalog-rules.js';
import { toModelMessage } from './catalog-mapper.js';
import { entrySnapshot, modelTarget } from './catalog-audit.js';

type UpsertModel = Handler<typeof catalogV1.CatalogServiceService.upsertModel>;

/**
 * Creates or replaces the model with this (code, media_kind), atomically, with its audit entry
 * (the entry before and after) in the same transaction.
 */
export function upsertModel({ pool, announceChange }: CatalogContext): UpsertModel {
  return async (request) => {
    const input = validateModelInput(request);
    const actor = requireOperatorActor(request.actor);
    const audited = { action: 'catalog.model.upsert', actor, target: modelTarget(input.code) };
    const { model, created } = await auditedChange(pool, 'catalog', audited, async (tx) => {
      const before = await lockModel(tx, { code: input.code, mediaKind: input.mediaKind });
      const upserted = await insertOrUpdateModel(tx, uuidv7(), input);
      return { result: upserted, before: entrySnapshot(before), after: entrySnapshot(upserted.model) };
    });
    // Announced after the commit: readers that reload find the new entry.
    announceChange({ kind: 'model', id: model.id });
    return { model: toModelMessage(model), created };
  };
}
