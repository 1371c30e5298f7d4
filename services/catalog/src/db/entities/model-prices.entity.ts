import { defineEntity, p } from '@atelier/orm';
import { ModelEntity } from './models.entity.js';

/** catalog.model_prices: a model's price per unit from a time on (migration 0005). */
export const ModelPriceEntity = defineEntity({
  name: 'ModelPrice',
  tableName: 'model_prices',
  properties: {
    id: p.bigint('string').primary().generated('identity'),
    model: p.manyToOne(ModelEntity).fieldName('model_id').deleteRule('cascade').foreignKeyName('model_prices_model_id_fkey'),
    unit: p.string().length(16),
    unitPriceMicros: p.bigint('number'),
    currency: p.string().length(3),
    effectiveFrom: p.datetime(),
    createdAt: p.datetime().defaultRaw('now()'),
  },
  uniques: [{ name: 'model_prices_model_unit_from_key', properties: ['model', 'unit', 'effectiveFrom'] }],
  checks: [
    { name: 'model_prices_unit_known', expression: `unit IN ('predict_second', 'image')` },
    { name: 'model_prices_price_range', expression: 'unit_price_micros >= 0 AND unit_price_micros <= 1000000000000' },
    { name: 'model_prices_currency_format', expression: `currency ~ '^[A-Z]{3}$'` },
  ],
});
