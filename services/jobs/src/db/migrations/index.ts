import type { NamedMigration } from '@atelier/db';

/** The Postgres schema that holds every jobs table and its migrations table. */
export const JOBS_SCHEMA = 'jobs';

/**
 * Every jobs migration, in order. Append only: never edit or reorder a released one. Classes load
 * on demand: the service's start-up schema check needs only the names.
 */
export const jobsMigrations: readonly NamedMigration[] = [
  { name: '0001-jobs-baseline', load: async () => (await import('./0001-jobs-baseline.js')).JobsBaseline },
  {
    name: '0002-provider-request-generation',
    load: async () => (await import('./0002-provider-request-generation.js')).ProviderRequestGeneration,
  },
  { name: '0003-trace-context', load: async () => (await import('./0003-trace-context.js')).TraceContext },
  { name: '0004-outbox-dispatch-by-job', load: async () => (await import('./0004-outbox-dispatch-by-job.js')).OutboxDispatchByJob },
  {
    name: '0005-in-flight-and-queue-position-indexes',
    load: async () => (await import('./0005-in-flight-and-queue-position-indexes.js')).InFlightAndQueuePositionIndexes,
  },
  { name: '0006-job-histories', load: async () => (await import('./0006-job-histories.js')).JobHistories },
  {
    name: '0007-queue-position-in-dispatch-order',
    load: async () => (await import('./0007-queue-position-in-dispatch-order.js')).QueuePositionInDispatchOrder,
  },
  {
    name: '0008-job-events-occurred-index',
    load: async () => (await import('./0008-job-events-occurred-index.js')).JobEventsOccurredIndex,
  },
  { name: '0009-outbox-replays', load: async () => (await import('./0009-outbox-replays.js')).OutboxReplays },
  { name: '0010-start-deadline', load: async () => (await import('./0010-start-deadline.js')).StartDeadline },
  { name: '0011-account-deletions', load: async () => (await import('./0011-account-deletions.js')).AccountDeletions },
  { name: '0012-effective-input', load: async () => (await import('./0012-effective-input.js')).EffectiveInput },
  { name: '0013-quota-hits', load: async () => (await import('./0013-quota-hits.js')).QuotaHits },
  { name: '0014-provider-call-ledger', load: async () => (await import('./0014-provider-call-ledger.js')).ProviderCallLedger },
  { name: '0015-provider-gates', load: async () => (await import('./0015-provider-gates.js')).ProviderGates },
  { name: '0016-reconciliation', load: async () => (await import('./0016-reconciliation.js')).Reconciliation },
  { name: '0017-provider-credentials', load: async () => (await import('./0017-provider-credentials.js')).ProviderCredentials },
  { name: '0018-redaction', load: async () => (await import('./0018-redaction.js')).Redaction },
  { name: '0019-output-sha256', load: async () => (await import('./0019-output-sha256.js')).OutputSha256 },
  { name: '0020-operator-audit', load: async () => (await import('./0020-operator-audit.js')).OperatorAudit },
  {
    name: '0021-job-type-format-without-regex',
    load: async () => (await import('./0021-job-type-format-without-regex.js')).JobTypeFormatWithoutRegex,
  },
  {
    name: '0022-outbox-without-payload-statistics',
    load: async () => (await import('./0022-outbox-without-payload-statistics.js')).OutboxWithoutPayloadStatistics,
  },
];
