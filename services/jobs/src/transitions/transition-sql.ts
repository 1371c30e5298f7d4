import {
  dispatchDedupeSql,
  dispatchPayloadSql,
  dispatchSubjectSql,
  eventDedupeSql,
  lifecyclePayloadSql,
  providerCancelDedupeSql,
  providerCancelPayloadSql,
} from '../db/outbox-payloads.js';

/**
 * The outbox rows transitions write in the same statement as the status change, as CTE bodies
 * over the changed rows (`source`, aliased j). Kept in one place so every transition announces
 * the same way.
 */

/** job.<status> for everyone who follows a job (media, community, WatchJob in other replicas). */
export const LIFECYCLE_OUTBOX = (source: string, subjectParam: string) => `
  INSERT INTO jobs.outbox (aggregate_id, event_type, subject, dedupe_key, payload, trace_context)
  SELECT j.id, 'job.' || j.status, ${subjectParam}, ${eventDedupeSql('j')}, ${lifecyclePayloadSql('j')}, j.trace_context FROM ${source} j`;

/**
 * A job that ends without its output (cancelled, failed) while a prediction it paid for may still
 * run at the vendor: a task any worker executes, since the one that ran the job may be dead.
 */
export const PROVIDER_CANCEL_OUTBOX = (source: string, subjectParam: string) => `
  INSERT INTO jobs.outbox (aggregate_id, event_type, subject, dedupe_key, payload, trace_context)
  SELECT j.id, 'job.provider_cancel', ${subjectParam}, ${providerCancelDedupeSql('j')}, ${providerCancelPayloadSql('j')}, j.trace_context
    FROM ${source} j WHERE j.provider_request_id IS NOT NULL`;

/** The dispatch of a job that is queued (again): due at its next_attempt_at. */
export const DISPATCH_OUTBOX = (source: string, interactiveParam: string, backgroundParam: string) => `
  INSERT INTO jobs.outbox (aggregate_id, event_type, subject, dedupe_key, payload, available_at, trace_context)
  SELECT j.id, 'job.dispatch', ${dispatchSubjectSql('j', interactiveParam, backgroundParam)}, ${dispatchDedupeSql('j')},
         ${dispatchPayloadSql('j')}, j.next_attempt_at, j.trace_context
    FROM ${source} j`;

/**
 * The columns a refusal is explained from, read by the transition's own statement: its WITH
 * clauses share one snapshot, so a join on jobs.generation_jobs (aliased `found`) sees the row as
 * it was when the statement began — no second read after a refusal.
 */
export const FOUND_COLUMNS = `found.status AS found_status, found.lease_owner AS found_lease_owner,
  found.next_attempt_at AS found_next_attempt_at, found.expects_output AS found_expects_output,
  found.provider_request_id AS found_provider_request_id, found.user_id AS found_user_id, found.job_type AS found_job_type`;
