import type { jobsUsageV1 } from '@atelier/contracts';
import { table } from './text-format.js';

/** Today's spend, for a terminal and for scripts. Pure. */

export interface SpendReport {
  from: Date;
  to: Date;
  byProvider: jobsUsageV1.GetSpendResponse;
  byModel: jobsUsageV1.GetSpendResponse;
}

/** Micros as a decimal amount: 1234567 USD micros → "1.234567 USD". */
export function formatMoney(micros: number, currency: string): string {
  const sign = micros < 0 ? '-' : '';
  const whole = Math.floor(Math.abs(micros) / 1_000_000);
  const fraction = String(Math.abs(micros) % 1_000_000).padStart(6, '0');
  return `${sign}${whole}.${fraction} ${currency || '-'}`;
}

function rowsOf(rows: readonly jobsUsageV1.SpendRow[]): string[][] {
  return rows.map((row) => [
    row.key,
    formatMoney(row.costMicros, row.currency),
    String(row.billablePredictions),
    (row.predictTimeMs / 1000).toFixed(1),
    String(row.images),
  ]);
}

const HEADER = ['', 'SPEND', 'PREDICTIONS', 'PREDICT S', 'IMAGES'];

export function formatSpendTable(report: SpendReport): string {
  const lines = [`Spend ${report.from.toISOString()} – ${report.to.toISOString()}`];
  if (report.byProvider.totals.length === 0) {
    lines.push('  nothing billed');
    return `${lines.join('\n')}\n`;
  }
  lines.push('', 'Per provider', ...table(['PROVIDER', ...HEADER.slice(1)], rowsOf(report.byProvider.rows)));
  lines.push('', 'Per model', ...table(['MODEL', ...HEADER.slice(1)], rowsOf(report.byModel.rows)));
  lines.push('', 'Total', ...report.byProvider.totals.map((total) => `  ${formatMoney(total.costMicros, total.currency)}`));
  return `${lines.join('\n')}\n`;
}

export function formatSpendJson(report: SpendReport): string {
  return `${JSON.stringify(
    {
      from: report.from.toISOString(),
      to: report.to.toISOString(),
      providers: report.byProvider.rows,
      models: report.byModel.rows,
      totals: report.byProvider.totals,
    },
    null,
    2,
  )}\n`;
}
