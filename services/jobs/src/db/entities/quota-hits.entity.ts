import { defineEntity, p } from '@atelier/orm';
import { MAX_USER_ID_LENGTH } from '@atelier/validation';

/** jobs.quota_hits: one row per user a quota allowance refused, per allowance and period, for the overview. */
export const QuotaHitEntity = defineEntity({
  name: 'QuotaHit',
  tableName: 'quota_hits',
  properties: {
    allowance: p.string().length(16).primary(),
    periodStart: p.datetime().primary(),
    userId: p.string().length(MAX_USER_ID_LENGTH).primary(),
    firstHitAt: p.datetime().defaultRaw('now()'),
  },
  primaryKeys: ['allowance', 'periodStart', 'userId'],
  checks: [{ name: 'quota_hits_allowance_known', expression: `allowance IN ('daily', 'monthly', 'in_flight')` }],
});
