/** A row of jobs.outbox. Ids are bigint, kept as strings. */
export interface OutboxRow {
  id: string;
  aggregate_id: string;
  event_type: string;
  subject: string;
  dedupe_key: string;
  payload: Record<string, unknown>;
  status: 'pending' | 'processing' | 'published' | 'dead';
  attempt_count: number;
  available_at: Date;
  locked_by: string | null;
  locked_at: Date | null;
  last_error: string | null;
  created_at: Date;
  /** Copied from the job: the publication continues the job's trace. */
  trace_context: Record<string, string> | null;
  published_at: Date | null;
}

/** An outbox row a transition wrote claimed for this replica's relay (transitions/transition-sql.ts), as the statement answered it. */
export type ClaimedOutboxRow = Pick<
  OutboxRow,
  'id' | 'aggregate_id' | 'event_type' | 'subject' | 'dedupe_key' | 'payload' | 'trace_context'
> & {
  /** As JSON gives it: an RFC 3339 string. */
  available_at: string;
};
