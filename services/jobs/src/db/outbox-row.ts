import type { OutboxRow as SchemaOutboxRow } from '@atelier/outbox';

/** jobs' outbox schema: its table has the shape of every outbox (libs/outbox), with a trace context. */
export const JOBS_OUTBOX_SCHEMA = 'jobs';

/** A row of jobs.outbox: a row of any outbox (ids are bigint, kept as strings), and its job's trace. */
export interface OutboxRow extends SchemaOutboxRow {
  /** Copied from the job: the publication continues the job's trace. */
  trace_context: Record<string, string> | null;
}

/** An outbox row a transition wrote claimed for this replica's relay (transitions/transition-sql.ts), as the statement answered it. */
export type ClaimedOutboxRow = Pick<
  OutboxRow,
  'id' | 'aggregate_id' | 'event_type' | 'subject' | 'dedupe_key' | 'payload' | 'trace_context'
> & {
  /** As JSON gives it: an RFC 3339 string. */
  available_at: string;
};
