import type { catalogV1 } from '@atelier/contracts';
import { uuidv7 } from '@atelier/db';
import type { Handler } from '@atelier/grpc';
import type { CatalogContext } from '../catalog-context.js';
import { insertOrUpdateStyle } from '../db/catalog-sql.js';
import { validateStyleInput } from '../domain/catalog-rules.js';
import { toStyleMessage } from './catalog-mapper.js';

type UpsertStyle = Handler<typeof catalogV1.CatalogServiceService.upsertStyle>;

/** Creates or replaces the style with this (code, media_kind), atomically. */
export function upsertStyle({ pool, announceChange }: CatalogContext): UpsertStyle {
  return async (request) => {
    const { style, created } = await insertOrUpdateStyle(pool, uuidv7(), validateStyleInput(request));
    // The upsert is one autocommitted statement: it has committed when it answers.
    announceChange({ kind: 'style', id: style.id });
    return { style: toStyleMessage(style), created };
  };
}
