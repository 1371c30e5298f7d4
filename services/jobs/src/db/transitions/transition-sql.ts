import { productEventIdSql } from '@atelier/outbox';
import { startDeadlinePassedSql } from '../../domain/start-deadline.js';
import type { OutboxSubjects } from '../job-row.js';
import {
  dispatchDedupeSql,
  dispatchPayloadSql,
  dispatchSubjectSql,
  endedProductEventSql,
  eventDedupeSql,
  lifecyclePayloadSql,
  providerCancelDedupeSql,
  providerCancelPayloadSql,
  submittedProductEventSql,
} from '../outbox-payload-sql.js';

/**
 * The outbox rows transitions write in the same statement as the status change, as CTE bodies
 * over the changed rows (`source`, aliased j). Kept in one place so every transition announces
 * the same way.
 */

/**
 * An outbox row is written claimed by this replica's relay (`processing`, locked by it) when the
 * statement is given the relay's name (`claimParam`, null while the broker is away or the relay
 * is busy) and the row is due now. After the commit the relay publishes it at once
 * (announce/announce.ts → OutboxRelay.publishClaimed): no wake-up, no claim statement, no NOTIFY. Should
 * this process die first, the row is an expired lock like any other claimed row and another relay
 * publishes it (releaseStaleOutboxLocks); JetStream drops a second copy by its Nats-Msg-Id.
 */
const claimedWhen = (due: string, claimParam: string) => ({
  columns: 'status, locked_by, locked_at',
  values: `CASE WHEN ${claimParam}::text IS NOT NULL AND ${due} <= now() THEN 'processing' ELSE 'pending' END,
           CASE WHEN ${due} <= now() THEN ${claimParam}::text END,
           CASE WHEN ${claimParam}::text IS NOT NULL AND ${due} <= now() THEN now() END`,
});

/** What the relay needs of a row it was handed claimed (OUTBOX_RETURNING → ClaimedOutboxRow). */
const OUTBOX_RETURNING = `RETURNING id, aggregate_id, event_type, subject, dedupe_key, payload, trace_context, available_at, status`;

/**
 * The placeholders of a statement's three product-event parameters, in the order
 * productEventValues gives them: the subject prefix, the user_ref pads, the creation job types.
 */
export interface ProductEventParams {
  subjectPrefix: string;
  userRefPads: string;
  jobTypes: string;
}

/** ProductEventParams at $n, $n+1 and $n+2. */
export const productEventParamsAt = (n: number): ProductEventParams => ({
  subjectPrefix: `$${n}`,
  userRefPads: `$${n + 1}`,
  jobTypes: `$${n + 2}`,
});

/** The values of ProductEventParams, to spread into a statement's values where its placeholders point. */
export const productEventValues = ({ productEvents }: OutboxSubjects): unknown[] => [
  productEvents.subjectPrefix,
  productEvents.userRefPads,
  productEvents.jobTypes,
];

/**
 * job.<status> for everyone who follows a job (media, community, WatchJob in other replicas),
 * and — for a job of a creation type — its product event creation_job_<status> for the app's
 * analytics: a job ends once, so each is written once.
 */
export const LIFECYCLE_OUTBOX = (source: string, subjectParam: string, product: ProductEventParams, claimParam: string) => {
  const claimed = claimedWhen('now()', claimParam);
  const productName = `'creation_job_' || j.status`;
  return `
  INSERT INTO jobs.outbox (aggregate_id, event_type, subject, dedupe_key, payload, trace_context, ${claimed.columns})
  SELECT j.id, e.event_type, e.subject, e.dedupe_key, e.payload, j.trace_context, ${claimed.values}
    FROM ${source} j
   CROSS JOIN LATERAL (
         SELECT 'job.' || j.status, ${subjectParam}, ${eventDedupeSql('j')}, ${lifecyclePayloadSql('j')}
         UNION ALL
         SELECT ${productName}, ${product.subjectPrefix} || ${productName}, ${productEventIdSql(productName, 'j.id')},
                ${endedProductEventSql('j', product.userRefPads)}
          WHERE j.job_type = ANY(${product.jobTypes}::text[])
       ) e(event_type, subject, dedupe_key, payload)
  ${OUTBOX_RETURNING}`;
};

/** creation_job_submitted of each new job of a creation type, for the app's analytics (a replay inserts no job, so none). */
export const SUBMITTED_OUTBOX = (source: string, product: ProductEventParams, claimParam: string) => {
  const claimed = claimedWhen('now()', claimParam);
  const productName = `'creation_job_submitted'`;
  return `
  INSERT INTO jobs.outbox (aggregate_id, event_type, subject, dedupe_key, payload, trace_context, ${claimed.columns})
  SELECT j.id, ${productName}, ${product.subjectPrefix} || ${productName}, ${productEventIdSql(productName, 'j.id')},
         ${submittedProductEventSql('j', product.userRefPads)}, j.trace_context, ${claimed.values}
    FROM ${source} j
   WHERE j.job_type = ANY(${product.jobTypes}::text[])
  ${OUTBOX_RETURNING}`;
};

/**
 * A job that ends without its output (cancelled, failed) while a prediction it paid for may still
 * run at the vendor: a task any worker executes, since the one that ran the job may be dead.
 */
export const PROVIDER_CANCEL_OUTBOX = (source: string, subjectParam: string, claimParam: string) => {
  const claimed = claimedWhen('now()', claimParam);
  return `
  INSERT INTO jobs.outbox (aggregate_id, event_type, subject, dedupe_key, payload, trace_context, ${claimed.columns})
  SELECT j.id, 'job.provider_cancel', ${subjectParam}, ${providerCancelDedupeSql('j')}, ${providerCancelPayloadSql('j')}, j.trace_context,
         ${claimed.values}
    FROM ${source} j WHERE j.provider_request_id IS NOT NULL
  ${OUTBOX_RETURNING}`;
};

/** The dispatch of a job that is queued (again): due at its next_attempt_at. */
export const DISPATCH_OUTBOX = (source: string, interactiveParam: string, backgroundParam: string, claimParam: string) => {
  const claimed = claimedWhen('j.next_attempt_at', claimParam);
  return `
  INSERT INTO jobs.outbox (aggregate_id, event_type, subject, dedupe_key, payload, available_at, trace_context, ${claimed.columns})
  SELECT j.id, 'job.dispatch', ${dispatchSubjectSql('j', interactiveParam, backgroundParam)}, ${dispatchDedupeSql('j')},
         ${dispatchPayloadSql('j')}, j.next_attempt_at, j.trace_context, ${claimed.values}
    FROM ${source} j
  ${OUTBOX_RETURNING}`;
};

/**
 * The claimed outbox rows of each changed job, from the statement's outbox CTEs, as a join that
 * adds a `claimed_outbox` json array (null when none) to the row of the job aliased `jobAlias`.
 */
export const CLAIMED_OUTBOX_JOIN = (outboxCtes: readonly string[], jobAlias: string) => `
  LEFT JOIN (
    SELECT x.aggregate_id,
           json_agg(json_build_object('id', x.id::text, 'aggregate_id', x.aggregate_id, 'event_type', x.event_type,
                                      'subject', x.subject, 'dedupe_key', x.dedupe_key, 'payload', x.payload,
                                      'trace_context', x.trace_context, 'available_at', x.available_at)) AS claimed_outbox
      FROM (${outboxCtes.map((cte) => `SELECT * FROM ${cte}`).join(' UNION ALL ')}) x
     WHERE x.status = 'processing'
     GROUP BY x.aggregate_id) claimed ON claimed.aggregate_id = ${jobAlias}.id`;

/**
 * The status a transition of jobs named by id requires (the CAS), written so that the planner
 * finds those jobs by primary key: given a plain `status = 'queued'` it may pick the partial index
 * of queued (or running) jobs instead, when its statistics say that index is small — as they do
 * just after a backlog built up (an outage of the workers) — and then read the whole backlog for
 * every batch of claims. `coalesce` leaves the meaning alone (status is NOT NULL) but implies no
 * index predicate.
 */
export const statusIs = (alias: string, status: 'queued' | 'running') => `coalesce(${alias}.status = '${status}', false)`;

/**
 * The columns a refusal is explained from, read by the transition's own statement: its WITH
 * clauses share one snapshot, so a join on jobs.generation_jobs (aliased `found`) sees the row as
 * it was when the statement began — no second read after a refusal.
 */
export const FOUND_COLUMNS = `found.status AS found_status, found.lease_owner AS found_lease_owner,
  found.next_attempt_at AS found_next_attempt_at, found.expects_output AS found_expects_output,
  found.provider_request_id AS found_provider_request_id, found.user_id AS found_user_id, found.job_type AS found_job_type,
  found.output_asset_id AS found_output_asset_id, found.output_sha256 AS found_output_sha256,
  ${startDeadlinePassedSql('found')} AS found_start_deadline_passed`;
