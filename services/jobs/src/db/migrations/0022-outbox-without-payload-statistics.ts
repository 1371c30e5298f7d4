import { Migration } from '@atelier/orm';

/**
 * The outbox's wide columns no statement filters, joins or sorts on: its payloads, trace contexts
 * and error texts. ANALYZE samples the same rows either way but skips computing their statistics,
 * which the planner never asks for: each auto-analyze of a busy outbox costs a third less (196–204
 * → 134–142 ms at 188 k rows; bench/README.md). Statistics an earlier ANALYZE kept for these
 * columns stay in pg_statistic as they were (only a superuser may delete them), which is why the
 * columns holding what users wrote — generation_jobs' prompts and parameters — are left alone: their
 * samples must keep being replaced as the rows are redacted. Those saved under a tenth of that
 * table's ANALYZE anyway.
 */
export const OUTBOX_COLUMNS_WITHOUT_STATISTICS = ['payload', 'trace_context', 'last_error'];

export class OutboxWithoutPayloadStatistics extends Migration {
  override up(): void {
    this.addSql(
      `ALTER TABLE jobs.outbox ${OUTBOX_COLUMNS_WITHOUT_STATISTICS.map((column) => `ALTER COLUMN ${column} SET STATISTICS 0`).join(', ')}`,
    );
  }
}
