import type { Queryable } from '@atelier/db';
import type { ModelPriceRow } from '../domain/model-prices.js';

/** The SQL of catalog.model_prices (migration 0005): rows are only ever added. */

const PRICE_COLUMNS = `model_id AS "modelId", unit, unit_price_micros::float8 AS "unitPriceMicros", currency, effective_from AS "effectiveFrom"`;

/** The price history of each model named, oldest first. */
export async function selectModelPrices(db: Queryable, modelIds: readonly string[]): Promise<Map<string, ModelPriceRow[]>> {
  const byModel = new Map<string, ModelPriceRow[]>();
  if (modelIds.length === 0) return byModel;
  const result = await db.query<ModelPriceRow>({
    name: 'catalog.model_prices',
    text: `SELECT ${PRICE_COLUMNS} FROM catalog.model_prices WHERE model_id = ANY($1::uuid[]) ORDER BY model_id, effective_from, unit`,
    values: [modelIds],
  });
  for (const row of result.rows) {
    const list = byModel.get(row.modelId) ?? [];
    list.push(row);
    byModel.set(row.modelId, list);
  }
  return byModel;
}

export type InsertPriceResult = 'inserted' | 'no_model' | 'duplicate' | { otherCurrency: string };

/**
 * Adds one price in one statement: refused (nothing written) when the model does not exist, when
 * its other prices are in another currency (a model is billed in one currency), or when the unit
 * already has a price from that very time. The model row is locked so that two prices of
 * different currencies cannot both pass the check.
 */
export async function insertModelPrice(db: Queryable, price: ModelPriceRow): Promise<InsertPriceResult> {
  const result = await db.query<{ model: boolean; other_currency: string | null; inserted: boolean }>({
    name: 'catalog.insert_model_price',
    text: `WITH model AS (SELECT id FROM catalog.models WHERE id = $1 FOR UPDATE),
                other AS (SELECT currency FROM catalog.model_prices WHERE model_id = $1 AND currency <> $4 LIMIT 1),
                inserted AS (
                  INSERT INTO catalog.model_prices (model_id, unit, unit_price_micros, currency, effective_from)
                  SELECT $1, $2, $3, $4, $5 FROM model WHERE NOT EXISTS (SELECT 1 FROM other)
                  ON CONFLICT ON CONSTRAINT model_prices_model_unit_from_key DO NOTHING
                  RETURNING 1)
           SELECT EXISTS (SELECT 1 FROM model) AS model, (SELECT currency FROM other) AS other_currency,
                  EXISTS (SELECT 1 FROM inserted) AS inserted`,
    values: [price.modelId, price.unit, price.unitPriceMicros, price.currency, price.effectiveFrom],
  });
  const row = result.rows[0]!;
  if (!row.model) return 'no_model';
  if (row.other_currency !== null) return { otherCurrency: row.other_currency };
  return row.inserted ? 'inserted' : 'duplicate';
}
