import { Counter, Gauge, Histogram, type Registry } from '@atelier/metrics';

/**
 * The providers' gates as Prometheus sees them (docs/budgets-and-limits.md). The gauges are set
 * by the budget watch from the database, so every replica reports the same numbers: aggregate
 * them with max(); the counters count what this replica did (sum them).
 */
export class ProviderGateMetrics {
  /** Claims a gate held back, by provider and reason (budget, concurrency, vendor_throttled). */
  readonly pausedClaims: Counter<'provider' | 'reason'>;
  /** Today's platform-key spend over the daily budget (1 or more: the provider is paused). */
  readonly budgetUsedRatio: Gauge<'provider' | 'model'>;
  readonly budgetLimitMicros: Gauge<'provider' | 'model'>;
  readonly budgetSpentMicros: Gauge<'provider' | 'model'>;
  /** Budget warnings (80 %) written to the ops events, once per budget per UTC day. */
  readonly budgetWarnings: Counter<'provider' | 'model'>;
  readonly concurrencyCap: Gauge<'provider' | 'model'>;
  /** Running jobs counted against the cap: at most one open prediction each. */
  readonly running: Gauge<'provider' | 'model'>;
  readonly rateCap: Gauge<'provider'>;
  /** 1 while the vendor's Retry-After pauses the provider. */
  readonly throttled: Gauge<'provider'>;
  readonly throttleReports: Counter<'provider'>;
  readonly permitsGranted: Counter<'provider'>;
  /** Permits asked for and not granted at once (the asker waits and asks again). */
  readonly permitsRefused: Counter<'provider'>;
  /** From when a job of a provider could first start (created, or due again) to its claim: the gates' wait shows here. */
  readonly startWait: Histogram<'provider'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.startWait = new Histogram({
      name: 'atelier_jobs_provider_start_wait_seconds',
      help: 'Time from when a job of the provider could start (created, or due again) to its claim: queueing and the gates together',
      labelNames: ['provider'] as const,
      buckets: [0.1, 0.5, 1, 2, 5, 10, 30, 60, 300, 900, 3600, 14400],
      registers,
    });
    this.pausedClaims = new Counter({
      name: 'atelier_jobs_claims_paused_total',
      help: 'Claims a provider gate held back (the job stays queued), by reason: budget, concurrency, vendor_throttled',
      labelNames: ['provider', 'reason'] as const,
      registers,
    });
    this.budgetUsedRatio = new Gauge({
      name: 'atelier_provider_budget_used_ratio',
      help: 'Today\'s (UTC) platform-key spend over the daily budget; model="" is the whole provider',
      labelNames: ['provider', 'model'] as const,
      registers,
    });
    this.budgetLimitMicros = new Gauge({
      name: 'atelier_provider_budget_limit_micros',
      help: 'Daily budget, in micros',
      labelNames: ['provider', 'model'] as const,
      registers,
    });
    this.budgetSpentMicros = new Gauge({
      name: 'atelier_provider_budget_spent_micros',
      help: "Today's spend against the budget, in micros",
      labelNames: ['provider', 'model'] as const,
      registers,
    });
    this.budgetWarnings = new Counter({
      name: 'atelier_provider_budget_warnings_total',
      help: 'Budget warnings (80 %) written to the ops events, once per budget per UTC day',
      labelNames: ['provider', 'model'] as const,
      registers,
    });
    this.concurrencyCap = new Gauge({
      name: 'atelier_provider_concurrency_cap',
      help: 'Most jobs of the provider (model) running at once',
      labelNames: ['provider', 'model'] as const,
      registers,
    });
    this.running = new Gauge({
      name: 'atelier_provider_running_jobs',
      help: 'Jobs of the provider (model) running now',
      labelNames: ['provider', 'model'] as const,
      registers,
    });
    this.rateCap = new Gauge({
      name: 'atelier_provider_rate_cap_per_second',
      help: 'Most calls a second to the provider, every pod together',
      labelNames: ['provider'] as const,
      registers,
    });
    this.throttled = new Gauge({
      name: 'atelier_provider_throttled',
      help: "1 while the vendor's Retry-After pauses the provider",
      labelNames: ['provider'] as const,
      registers,
    });
    this.throttleReports = new Counter({
      name: 'atelier_provider_throttle_reports_total',
      help: 'Vendor 429s reported by workers',
      labelNames: ['provider'] as const,
      registers,
    });
    this.permitsGranted = new Counter({
      name: 'atelier_provider_permits_granted_total',
      help: 'Request permits granted',
      labelNames: ['provider'] as const,
      registers,
    });
    this.permitsRefused = new Counter({
      name: 'atelier_provider_permits_short_total',
      help: 'Permits asked for and not granted at once (the asker waits)',
      labelNames: ['provider'] as const,
      registers,
    });
  }
}
