import type { jobsExecutionV1 } from '@atelier/contracts';
import type { SqlPool } from '@atelier/db';
import type { WaitingWorkers } from './announce/waiting-workers.js';
import type { Logger } from '@atelier/logging';
import type { JobDefinitionRegistry } from './definitions/index.js';
import type { OutboxSubjects } from './db/job-row.js';
import type { QuotaLimits } from './domain/quota.js';
import type { JobWatchHub } from './announce/job-watch-hub.js';
import type { JobsMetrics } from './jobs-metrics.js';
import type { ReconciliationMetrics } from './reconciliation-metrics.js';
import type { ProviderGateMetrics } from './provider-gates-metrics.js';
import type { Peers } from './peers/peer-validation.js';
import type { KekRing } from './domain/kek-ring.js';
import type { AnnounceTargets } from './announce/announce.js';
import type { TransitionBatches } from './db/transitions/transition-batches.js';
import type { BudgetExhaustionCache } from './db/budget-exhaustion-cache.js';

/** What the jobs RPC handlers depend on. */
export interface JobsContext extends AnnounceTargets {
  pool: SqlPool;
  /** Coalesced creates, claims and completions (the hot path). */
  batches: TransitionBatches;
  registry: JobDefinitionRegistry;
  peers: Peers;
  subjects: OutboxSubjects;
  /**
   * Where a transition writes its outbox rows now: the subjects, with this replica's relay to
   * claim the due rows when it can take them (OutboxRelay.claimLane); announce() hands them over.
   */
  outboxSubjects(): OutboxSubjects;
  logger: Logger;
  watchHub: JobWatchHub;
  quota: QuotaLimits;
  leaseTtlMs: number;
  /** WatchJob's safety re-read, for a change notice that was lost (WATCH_REREAD_MS). */
  watchRereadMs: number;
  /** Call after every commit that wrote outbox rows: wakes the relays (announce/announce.ts does). */
  onOutboxWrite: () => void;
  metrics: JobsMetrics;
  /** Reconciliation with the vendor: its windows (RECONCILIATION_* variables) and its findings counter. */
  reconciliation: { settleMs: number; maxWindowMs: number; leaseMs: number };
  reconciliationMetrics: ReconciliationMetrics;
  /** Users' own vendor keys (docs/credentials.md). */
  credentials: {
    /** The key-encryption keys as CREDENTIALS_KEK_FILE holds them now; undefined: none configured. */
    keks: (() => KekRing) | undefined;
    maxPerUser: number;
  };
  /** The providers' gates: paused claims, permits, budgets (provider-gates-metrics.ts). */
  gateMetrics: ProviderGateMetrics;
  /** Whether a provider model's budget is spent, as CreateJob asks it (at most once a second each). */
  budgets: BudgetExhaustionCache;
  /** The workers waiting here for jobs (AwaitJobs), to whom dispatches go straight (background/dispatch-hand-off.ts). */
  waitingWorkers: WaitingWorkers<jobsExecutionV1.HandedOverJob>;
}
