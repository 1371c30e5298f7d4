/**
 * What a vendor call's billable units cost (docs/usage-ledger.md): for each unit the row reports —
 * predict time (a `predict_second` price, per second, prorated per millisecond and rounded to the
 * nearest micro) and images (an `image` price) — the price of the model in force at the call's
 * time (the unit's latest price whose effective_from is not after called_at), summed. No price in
 * force for any reported unit: no cost (null), to be priced by RecomputeCosts once one exists.
 * A model's prices share one currency (catalog refuses another).
 */

export interface UnitPrice {
  unit: string;
  unitPriceMicros: number;
  currency: string;
  effectiveFrom: Date | undefined;
}

export interface BillableUnits {
  predictTimeMs: number | null;
  images: number | null;
  calledAt: Date;
}

export interface CallCost {
  costMicros: number;
  currency: string;
}

/** The price of a unit in force at a time, or undefined. */
export function priceInForce(prices: readonly UnitPrice[], unit: string, at: Date): UnitPrice | undefined {
  let found: UnitPrice | undefined;
  for (const price of prices) {
    if (price.unit !== unit || !price.effectiveFrom || price.effectiveFrom.getTime() > at.getTime()) continue;
    if (!found || price.effectiveFrom.getTime() > found.effectiveFrom!.getTime()) found = price;
  }
  return found;
}

export function hasUnits(units: Pick<BillableUnits, 'predictTimeMs' | 'images'>): boolean {
  return units.predictTimeMs !== null || units.images !== null;
}

/** The cost of the units at the prices in force at called_at, or null when none of them has a price. */
export function callCost(units: BillableUnits, prices: readonly UnitPrice[]): CallCost | null {
  let micros = 0n;
  let currency: string | undefined;
  const add = (unit: string, quantity: number | null, perMicros: (price: bigint) => bigint) => {
    if (quantity === null) return;
    const price = priceInForce(prices, unit, units.calledAt);
    if (!price) return;
    micros += perMicros(BigInt(price.unitPriceMicros));
    currency ??= price.currency;
  };
  add('predict_second', units.predictTimeMs, (price) => (BigInt(units.predictTimeMs!) * price + 500n) / 1000n);
  add('image', units.images, (price) => BigInt(units.images!) * price);
  return currency === undefined ? null : { costMicros: Number(micros), currency };
}
