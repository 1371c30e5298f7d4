import { Counter, Gauge, Histogram, type Registry } from '@atelier/metrics';
import { outboxGauges } from '@atelier/outbox';
import type { QueueStats } from './db/queue-stats-sql.js';
import type { JobRow } from './db/job-row.js';
import { providerCharges } from './domain/provider-charges.js';

/** A scrape reads the queue statistics once for all the gauges that show them. */
const STATS_REUSE_MS = 1_000;

/**
 * The jobs service's Prometheus series. Counters count what this replica committed (Prometheus
 * sums the replicas); the gauges are read from the database at scrape time, so every replica
 * reports the same, whole-system numbers — aggregate them with max(), not sum().
 */
export class JobsMetrics {
  readonly created: Counter<'job_type'>;
  readonly claimed: Counter<'job_type'>;
  readonly succeeded: Counter<'job_type'>;
  /** Jobs that ended `failed` (attempts spent, or a non-retryable error), the reaper's included. */
  readonly failed: Counter<'job_type'>;
  /** Queued jobs cancelled because no worker started them by their start deadline. */
  readonly startDeadlineExpired: Counter<'job_type'>;
  /** Expired leases the reaper handled, by what became of the job. */
  readonly leaseExpiries: Counter<'outcome'>;
  /** Queued jobs dispatched again because their dispatch message was lost. */
  readonly redispatched: Counter;
  /** From the moment an outbox row was due to JetStream's acknowledgement of its publication. */
  readonly outboxPublishLag: Histogram;
  /**
   * Dispatches that went straight to a waiting worker (AwaitJobs), not through NATS, by outcome:
   * `handed_over` (claimed and answered), `released` (its worker had given up the call meanwhile).
   */
  readonly handedOver: Counter<'outcome'>;
  /** How many AwaitJobs calls wait at this replica now (a worker keeps up to WORKER_AWAIT_CALLS, one per free slot at most): read at scrape time. */
  waitingWorkers: () => number = () => 0;
  /** Per job that ended, the provider requests it paid for (the double-charge meter's own side). */
  readonly providerChargesPerJob: Histogram<'job_type'>;
  /** Vendor spend recorded in the usage ledger, in millionths of the currency, by provider (cost of billable calls at write). */
  readonly providerSpend: Counter<'provider' | 'currency'>;
  /** WatchJob streams this replica is serving now: streams left behind by gone clients show here. */
  readonly watchStreamsOpen: Gauge;
  /**
   * Where a created job's CreateJob spent its time, by stage: `peers` (catalog, media and pet
   * look-ups, the credential check), `insert` (waiting for its insert batch and running it). The
   * two waits on other processes; the rest of a call is this process's own work.
   */
  readonly createStage: Histogram<'stage'>;
  private statsRead: { at: number; stats: Promise<QueueStats> } | undefined;

  /**
   * A job reached a terminal status: counts it by outcome and, for a job that went to a
   * provider, observes how many provider requests it paid for.
   */
  ended(row: Pick<JobRow, 'job_type' | 'status' | 'provider_code_snapshot' | 'provider_request_id' | 'provider_request_generation'>): void {
    const labels = { job_type: row.job_type };
    if (row.status === 'succeeded') this.succeeded.inc(labels);
    else if (row.status === 'failed') this.failed.inc(labels);
    else if (row.status !== 'cancelled') return;
    if (row.provider_code_snapshot) this.providerChargesPerJob.observe(labels, providerCharges(row));
  }

  constructor(registry: Registry, readStats: () => Promise<QueueStats>) {
    const registers = [registry];
    const byType = { labelNames: ['job_type'] as const, registers };
    this.created = new Counter({ name: 'atelier_jobs_created_total', help: 'Jobs created', ...byType });
    this.providerSpend = new Counter({
      name: 'atelier_provider_spend_micros_total',
      help: 'Vendor spend written to the usage ledger (cost of billable calls at write), in millionths of the currency, by provider code and currency',
      labelNames: ['provider', 'currency'] as const,
      registers,
    });
    this.claimed = new Counter({ name: 'atelier_jobs_claimed_total', help: 'Attempts started: a worker claimed a queued job', ...byType });
    this.succeeded = new Counter({ name: 'atelier_jobs_succeeded_total', help: 'Jobs that ended succeeded', ...byType });
    this.failed = new Counter({ name: 'atelier_jobs_failed_total', help: 'Jobs that ended failed', ...byType });
    this.leaseExpiries = new Counter({
      name: 'atelier_jobs_lease_expiries_total',
      help: 'Expired worker leases reaped, by outcome (requeued or failed)',
      labelNames: ['outcome'] as const,
      registers,
    });
    this.startDeadlineExpired = new Counter({
      name: 'atelier_jobs_start_deadline_expired_total',
      help: 'Queued jobs cancelled (START_DEADLINE_EXCEEDED) because no worker started them within their startWithinSeconds',
      ...byType,
    });
    this.redispatched = new Counter({
      name: 'atelier_jobs_redispatched_total',
      help: 'Queued jobs dispatched again because no dispatch was on its way after DISPATCH_STALE_AFTER_MS',
      registers,
    });
    this.handedOver = new Counter({
      name: 'atelier_jobs_handed_over_total',
      help: 'Dispatches claimed for a worker waiting in AwaitJobs instead of going through NATS, by outcome (handed_over, released)',
      labelNames: ['outcome'] as const,
      registers,
    });
    const waitingWorkers = () => this.waitingWorkers();
    new Gauge({
      name: 'atelier_jobs_waiting_workers',
      help: 'AwaitJobs calls waiting at this replica now (a worker keeps up to WORKER_AWAIT_CALLS, at most one per free slot, its free slots shared between them)',
      registers,
      collect() {
        this.set(waitingWorkers());
      },
    });
    this.outboxPublishLag = new Histogram({
      name: 'atelier_outbox_publish_lag_seconds',
      help: 'Time from an outbox row falling due to its publication being acknowledged by JetStream',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    });

    this.providerChargesPerJob = new Histogram({
      name: 'atelier_jobs_provider_charges_per_job',
      help: 'Provider requests (charges) per job that ended with a provider snapshot: 1 unless the vendor itself failed a prediction',
      buckets: [0, 1, 2, 3, 5],
      ...byType,
    });

    this.createStage = new Histogram({
      name: 'atelier_jobs_create_stage_seconds',
      help: 'Time a CreateJob that created its job spent in each stage: peers (catalog, media and pet look-ups, the credential check), insert (its insert batch: the wait and the statement)',
      labelNames: ['stage'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.015, 0.025, 0.05, 0.1, 0.25, 1],
      registers,
    });

    this.watchStreamsOpen = new Gauge({
      name: 'atelier_jobs_watch_streams_open',
      help: 'WatchJob streams open on this replica',
      registers,
    });

    const stats = () => {
      const now = Date.now();
      if (!this.statsRead || now - this.statsRead.at > STATS_REUSE_MS) this.statsRead = { at: now, stats: readStats() };
      return this.statsRead.stats;
    };
    new Gauge({
      name: 'atelier_jobs_queue_depth',
      help: 'Jobs queued (ready or delayed) and running, by queue',
      labelNames: ['queue', 'state'] as const,
      registers,
      async collect() {
        for (const depth of (await stats()).queues) {
          this.set({ queue: depth.queue, state: 'ready' }, depth.ready);
          this.set({ queue: depth.queue, state: 'delayed' }, depth.delayed);
          this.set({ queue: depth.queue, state: 'running' }, depth.running);
        }
      },
    });
    new Gauge({
      name: 'atelier_jobs_oldest_ready_age_seconds',
      help: 'Age of the oldest job ready to run, by queue (how far behind the workers are)',
      labelNames: ['queue'] as const,
      registers,
      async collect() {
        for (const depth of (await stats()).queues) this.set({ queue: depth.queue }, depth.oldestReadyAgeMs / 1000);
      },
    });
    // The outbox series every outbox has (libs/outbox), from the same read as the queues'.
    outboxGauges(registry, async () => {
      const { outboxPending, outboxDead, outboxOldestPendingAgeMs } = await stats();
      return { pending: outboxPending, dead: outboxDead, oldestPendingAgeMs: outboxOldestPendingAgeMs };
    });
  }
}
