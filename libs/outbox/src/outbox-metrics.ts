import type { Queryable } from '@atelier/db';
import { Gauge, type Registry } from '@atelier/metrics';
import { outboxBacklog, type OutboxBacklog } from './outbox-sql.js';

/**
 * The series operators watch an outbox by, read from `<schema>.outbox` at each scrape. The names
 * are the same for every outbox, jobs' included, so the chart's alert on dead outbox rows covers
 * every service.
 */
export function registerOutboxMetrics(registry: Registry, db: Queryable, schema: string): void {
  outboxGauges(registry, () => outboxBacklog(db, schema));
}

/** The outbox series, from a backlog read at each scrape (jobs reads its own with its queue figures). */
export function outboxGauges(registry: Registry, read: () => Promise<OutboxBacklog>): void {
  const registers = [registry];
  new Gauge({
    name: 'atelier_outbox_backlog',
    help: 'Outbox rows not yet published (pending) and given up on (dead)',
    labelNames: ['status'] as const,
    registers,
    async collect() {
      const { pending, dead } = await read();
      this.set({ status: 'pending' }, pending);
      this.set({ status: 'dead' }, dead);
    },
  });
  new Gauge({
    name: 'atelier_outbox_oldest_pending_age_seconds',
    help: 'Age of the oldest due outbox row not yet published',
    registers,
    async collect() {
      this.set((await read()).oldestPendingAgeMs / 1000);
    },
  });
}
