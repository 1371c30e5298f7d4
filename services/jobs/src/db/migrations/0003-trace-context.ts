import { Migration } from '@atelier/orm';

/**
 * The W3C trace context of the request that created a job, kept on the job and copied onto each
 * of its outbox rows, so the relay can publish a dispatch as part of the trace that asked for it
 * — minutes or retries later, from another replica. Nullable: tracing may be off. Bounded, so a
 * misbehaving propagator cannot bloat the hot tables.
 */
export class TraceContext extends Migration {
  override up(): void {
    this.addSql(`
      ALTER TABLE jobs.generation_jobs
        ADD COLUMN trace_context jsonb
          CONSTRAINT generation_jobs_trace_context_shape
            CHECK (trace_context IS NULL OR (jsonb_typeof(trace_context) = 'object' AND octet_length(trace_context::text) <= 1024))`);
    this.addSql(`
      ALTER TABLE jobs.outbox
        ADD COLUMN trace_context jsonb
          CONSTRAINT outbox_trace_context_shape
            CHECK (trace_context IS NULL OR (jsonb_typeof(trace_context) = 'object' AND octet_length(trace_context::text) <= 1024))`);
  }
}
