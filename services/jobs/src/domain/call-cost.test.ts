import { describe, expect, it } from 'vitest';
import { callCost, priceInForce, type UnitPrice } from './call-cost.js';

const prices: UnitPrice[] = [
  { unit: 'predict_second', unitPriceMicros: 2300, currency: 'USD', effectiveFrom: new Date('2020-01-01T00:00:00Z') },
  { unit: 'predict_second', unitPriceMicros: 5000, currency: 'USD', effectiveFrom: new Date('2026-06-01T00:00:00Z') },
  { unit: 'image', unitPriceMicros: 40_000, currency: 'USD', effectiveFrom: new Date('2026-06-01T00:00:00Z') },
];

describe('call cost - the price in force at the call, applied to the units', () => {
  it('takes the latest price of the unit not after the call', () => {
    expect(priceInForce(prices, 'predict_second', new Date('2026-05-31T23:59:59Z'))!.unitPriceMicros).toBe(2300);
    expect(priceInForce(prices, 'predict_second', new Date('2026-06-01T00:00:00Z'))!.unitPriceMicros).toBe(5000);
    expect(priceInForce(prices, 'image', new Date('2026-01-01T00:00:00Z'))).toBeUndefined();
  });

  it('prorates predict time per millisecond, rounding to the nearest micro, and adds images', () => {
    expect(callCost({ predictTimeMs: 1500, images: null, calledAt: new Date('2026-01-01Z') }, prices)).toEqual({
      costMicros: 3450,
      currency: 'USD',
    });
    expect(callCost({ predictTimeMs: 1, images: null, calledAt: new Date('2026-01-01Z') }, prices)).toEqual({
      costMicros: 2,
      currency: 'USD',
    });
    expect(callCost({ predictTimeMs: 2000, images: 2, calledAt: new Date('2026-07-01Z') }, prices)).toEqual({
      costMicros: 10_000 + 80_000,
      currency: 'USD',
    });
  });

  it('has no cost when no reported unit has a price in force', () => {
    expect(callCost({ predictTimeMs: null, images: 1, calledAt: new Date('2026-01-01Z') }, prices)).toBeNull();
    expect(callCost({ predictTimeMs: 1000, images: null, calledAt: new Date('2019-01-01Z') }, prices)).toBeNull();
  });
});
