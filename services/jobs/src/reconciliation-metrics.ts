import { PROVIDER_CODES } from '@atelier/job-types';
import { Counter, Gauge, type Registry } from '@atelier/metrics';
import { FINDING_KIND_WORDS, type FindingKindWord } from './domain/reconciliation.js';

/** What the gauges read at scrape time (db/reconciliation-sql.ts). */
export interface ReconciliationReads {
  openFindings(): Promise<{ provider_code: string; kind: FindingKindWord; open: number }[]>;
  coverage(): Promise<{ provider_code: string; last_finished_at: Date; now: Date }[]>;
}

/**
 * Reconciliation's series. The counter counts the findings this replica recorded (sum the
 * replicas); the gauges are read from the database at scrape time, the same on every replica
 * (aggregate them with max()). A provider no run ever finished for reports the age since this
 * process started, so "reconciliation has not run" alerts on a fresh install too.
 */
export class ReconciliationMetrics {
  readonly findings: Counter<'provider' | 'kind'>;

  constructor(registry: Registry, reads: ReconciliationReads, startedAt = new Date()) {
    const registers = [registry];
    this.findings = new Counter({
      name: 'atelier_reconciliation_findings_total',
      help: 'Reconciliation findings recorded (each once): a vendor prediction no job knows, a job billed twice, a ledger submit the vendor does not list',
      labelNames: ['provider', 'kind'] as const,
      registers,
    });
    new Gauge({
      name: 'atelier_reconciliation_findings_open',
      help: 'Reconciliation findings no operator acknowledged yet, by provider and kind',
      labelNames: ['provider', 'kind'] as const,
      registers,
      async collect() {
        this.reset();
        // Every known (provider, kind) shows, 0 when none is open: an alert sees it go back to 0.
        for (const provider of PROVIDER_CODES) for (const kind of FINDING_KIND_WORDS) this.set({ provider, kind }, 0);
        for (const row of await reads.openFindings()) this.set({ provider: row.provider_code, kind: row.kind }, row.open);
      },
    });
    new Gauge({
      name: 'atelier_reconciliation_last_success_age_seconds',
      help: 'Seconds since the last reconciliation run of the provider finished (since jobs started, when none ever did)',
      labelNames: ['provider'] as const,
      registers,
      async collect() {
        const rows = await reads.coverage();
        const now = rows[0]?.now ?? new Date();
        for (const provider of PROVIDER_CODES) {
          const last = rows.find((row) => row.provider_code === provider)?.last_finished_at ?? startedAt;
          this.set({ provider }, Math.max(0, (now.getTime() - last.getTime()) / 1000));
        }
      },
    });
  }

  /** Counts the findings a run recorded for the first time. */
  recorded(provider: string, kinds: readonly FindingKindWord[]): void {
    for (const kind of kinds) this.findings.inc({ provider, kind });
  }
}
