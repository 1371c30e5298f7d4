import { Migration } from '@atelier/orm';

/**
 * What a model costs at its vendor (docs/usage-ledger.md): per unit — a second of the vendor's
 * predict time (`predict_second`) or an output image (`image`) — in millionths of an ISO 4217
 * currency, from `effective_from` until the unit's next price. Rows are only added (SetModelPrice
 * refuses an effective_from more than a minute in the past), so the price any past call was made
 * at stays readable: jobs costs its usage ledger with them and can recompute.
 *
 * Seed: every model served by the simulator (`sim`) costs 0.0023 USD per predict second (2300
 * micros), from 2020-01-01 — a public list price of a GPU prediction, so that spend in development
 * and tests is not zero.
 */
export class CatalogModelPrices extends Migration {
  override up(): void {
    this.addSql(`
      CREATE TABLE catalog.model_prices (
        id                 bigint       GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        model_id           uuid         NOT NULL REFERENCES catalog.models (id) ON DELETE CASCADE,
        unit               varchar(16)  NOT NULL CONSTRAINT model_prices_unit_known CHECK (unit IN ('predict_second', 'image')),
        unit_price_micros  bigint       NOT NULL CONSTRAINT model_prices_price_range CHECK (unit_price_micros >= 0 AND unit_price_micros <= 1000000000000),
        currency           varchar(3)   NOT NULL CONSTRAINT model_prices_currency_format CHECK (currency ~ '^[A-Z]{3}$'),
        effective_from     timestamptz  NOT NULL,
        created_at         timestamptz  NOT NULL DEFAULT now(),
        CONSTRAINT model_prices_model_unit_from_key UNIQUE (model_id, unit, effective_from)
      )`);
    this.addSql(`
      INSERT INTO catalog.model_prices (model_id, unit, unit_price_micros, currency, effective_from)
      SELECT id, 'predict_second', 2300, 'USD', TIMESTAMPTZ '2020-01-01T00:00:00Z' FROM catalog.models WHERE provider_code = 'sim'`);
  }
}
