import type { catalogV1 } from '@atelier/contracts';
import { InvalidArgumentError } from '@atelier/errors';
import { requireUuid } from '@atelier/validation';

/** One price of a model (a row of catalog.model_prices). */
export interface ModelPriceRow {
  modelId: string;
  unit: string;
  unitPriceMicros: number;
  currency: string;
  effectiveFrom: Date;
}

/** The units a model is priced in (catalog.model_prices.unit, CHECK model_prices_unit_known). */
export const MODEL_PRICE_UNITS = ['predict_second', 'image'] as const;

/** The largest price per unit (CHECK model_prices_price_range): a million currency units. */
export const MAX_UNIT_PRICE_MICROS = 1_000_000_000_000;

/** How far in the past a new price may start: the history of prices calls were made at is never rewritten. */
export const PRICE_BACKDATE_TOLERANCE_MS = 60_000;

const CURRENCY_PATTERN = /^[A-Z]{3}$/;

/** A SetModelPriceRequest checked field by field; effective_from defaults to now. */
export function validateModelPrice(request: catalogV1.SetModelPriceRequest, now: Date): ModelPriceRow {
  const modelId = requireUuid(request.modelId, 'model_id');
  if (!(MODEL_PRICE_UNITS as readonly string[]).includes(request.unit)) {
    throw new InvalidArgumentError('unit', `must be one of ${MODEL_PRICE_UNITS.join(', ')}`);
  }
  const price = request.unitPriceMicros;
  if (!Number.isSafeInteger(price) || price < 0 || price > MAX_UNIT_PRICE_MICROS) {
    throw new InvalidArgumentError('unit_price_micros', `must be an integer between 0 and ${MAX_UNIT_PRICE_MICROS}`);
  }
  if (!CURRENCY_PATTERN.test(request.currency)) throw new InvalidArgumentError('currency', 'must be an ISO 4217 code such as USD');
  const effectiveFrom = request.effectiveFrom ?? now;
  if (Number.isNaN(effectiveFrom.getTime())) throw new InvalidArgumentError('effective_from', 'must be a valid time');
  if (effectiveFrom.getTime() < now.getTime() - PRICE_BACKDATE_TOLERANCE_MS) {
    throw new InvalidArgumentError('effective_from', 'must not be more than a minute in the past: past prices are never rewritten');
  }
  return { modelId, unit: request.unit, unitPriceMicros: price, currency: request.currency, effectiveFrom };
}

export function toModelPriceMessage(price: ModelPriceRow): catalogV1.ModelPrice {
  return { unit: price.unit, unitPriceMicros: price.unitPriceMicros, currency: price.currency, effectiveFrom: price.effectiveFrom };
}
