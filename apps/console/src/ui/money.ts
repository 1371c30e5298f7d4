/**
 * Millionths of a currency as money: `money(41_400, 'USD')` is "USD 0.0414". Vendor prices are
 * fractions of a cent, so up to four decimals show; an empty currency is a prediction no price
 * covered.
 */
export function money(micros: number, currency: string): string {
  const amount = micros / 1e6;
  const digits = amount !== 0 && Math.abs(amount) < 1 ? 4 : 2;
  return currency ? `${currency} ${amount.toFixed(digits)}` : `${micros} µ (unpriced)`;
}
