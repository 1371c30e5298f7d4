import { randomBytes } from 'node:crypto';
import { uuidv7, type Queryable } from '@atelier/db';

export interface SpendOptions {
  model?: string;
  mode?: 'platform_key' | 'user_key';
}

/** A billable ledger row of today with this cost, as the ledger's writer leaves it: spend a budget counts. */
export async function spendToday(db: Queryable, provider: string, micros: number, options: SpendOptions = {}): Promise<void> {
  await db.query(
    `INSERT INTO jobs.provider_calls (job_id, attempt, call_kind, request_key, vendor_id, provider_code, provider_model, model_version,
                                      credential_mode, credential_id, outcome, latency_ms, images, billable, cost_micros, currency, called_at)
     VALUES ($1, 1, 'poll', $2, $3, $4, $5, 'v1', $6, 'platform:test', 'ok', 10, 1, true, $7, 'USD', now())`,
    [
      uuidv7(),
      `rk-${randomBytes(6).toString('hex')}`,
      `pred_${randomBytes(6).toString('hex')}`,
      provider,
      options.model ?? 'model-a',
      options.mode ?? 'platform_key',
      micros,
    ],
  );
}
