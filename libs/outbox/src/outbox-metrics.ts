import type { Queryable } from '@atelier/db';
import { Gauge, type Registry } from '@atelier/metrics';
import { outboxBacklog } from './outbox-sql.js';

/**
 * The series operators watch an outbox by, read from `<schema>.outbox` at each scrape: the same
 * names as jobs' (jobs-metrics.ts), so the chart's alert on dead outbox rows covers every service.
 */
export function registerOutboxMetrics(registry: Registry, db: Queryable, schema: string): void {
  const registers = [registry];
  new Gauge({
    name: 'atelier_outbox_backlog',
    help: 'Outbox rows not yet published (pending) and given up on (dead)',
    labelNames: ['status'] as const,
    registers,
    async collect() {
      const { pending, dead } = await outboxBacklog(db, schema);
      this.set({ status: 'pending' }, pending);
      this.set({ status: 'dead' }, dead);
    },
  });
  new Gauge({
    name: 'atelier_outbox_oldest_pending_age_seconds',
    help: 'Age of the oldest due outbox row not yet published',
    registers,
    async collect() {
      this.set((await outboxBacklog(db, schema)).oldestPendingAgeMs / 1000);
    },
  });
}
