import { CREATION_JOB_TYPES } from '@atelier/job-types';
import { productEventSql, rfc3339Sql as rfc3339, type UserRefKey } from '@atelier/outbox';
import type { ProductEventSubjects } from './job-row.js';

/**
 * SQL that builds outbox payloads inside the transition statements, so a transition stays one
 * round trip. The JSON follows the proto3 JSON mapping of atelier.jobs.v1 JobDispatch and
 * JobLifecycleEvent (events.proto) and of atelier.events.v1 ProductEvent (product_events.proto):
 * lowerCamelCase names, enums by their full names, timestamps as RFC 3339 UTC. Ids only — never
 * prompts or user data (a product event names its user by user_ref only).
 */

/** JobDispatch for a job row aliased `j` that was just queued (its next attempt is attempt_count + 1). */
export const dispatchPayloadSql = (j: string) =>
  `jsonb_build_object(
     'jobId', ${j}.id, 'jobType', ${j}.job_type,
     'queue', CASE ${j}.queue WHEN 'interactive' THEN 'JOB_QUEUE_INTERACTIVE' ELSE 'JOB_QUEUE_BACKGROUND' END,
     'attempt', ${j}.attempt_count + 1, 'dueAt', ${rfc3339(`${j}.next_attempt_at`)})`;

/** JobLifecycleEvent for a job row aliased `j` that just reached its current status. */
export const lifecyclePayloadSql = (j: string) =>
  `jsonb_strip_nulls(jsonb_build_object(
     'jobId', ${j}.id, 'jobType', ${j}.job_type, 'eventType', 'job.' || ${j}.status,
     'status', 'JOB_STATUS_' || upper(${j}.status), 'attempt', ${j}.attempt_count,
     'errorCode', ${j}.error_code, 'outputAssetId', ${j}.output_asset_id,
     'occurredAt', ${rfc3339(`${j}.updated_at`)}))`;

/** The dispatch subject of a job row aliased `j`, given the two subjects as parameters. */
export const dispatchSubjectSql = (j: string, interactiveParam: string, backgroundParam: string) =>
  `CASE ${j}.queue WHEN 'interactive' THEN ${interactiveParam} ELSE ${backgroundParam} END`;

/** Unique per transition: the job's version after it. */
export const dispatchDedupeSql = (j: string) => `'dispatch:' || ${j}.id || ':v' || ${j}.version`;
/**
 * A repeated dispatch of an unchanged job (background/stale-dispatch-sweeper.ts) must not be taken for the
 * original by JetStream's duplicate window: the moment of the repeat makes it new.
 */
export const redispatchDedupeSql = (j: string) =>
  `'redispatch:' || ${j}.id || ':v' || ${j}.version || ':' || floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint`;
export const eventDedupeSql = (j: string) => `'event:' || ${j}.id || ':' || ${j}.status || ':v' || ${j}.version`;

/** ProviderCancel for a job row aliased `j` that ended without its output while its prediction may run on. */
export const providerCancelPayloadSql = (j: string) =>
  `jsonb_build_object('jobId', ${j}.id, 'providerCode', ${j}.provider_code_snapshot, 'providerRequestId', ${j}.provider_request_id)`;
/** One cancel task per prediction: a job ends once. */
export const providerCancelDedupeSql = (j: string) => `'provider-cancel:' || ${j}.id || ':' || ${j}.provider_request_id`;

/** Whole milliseconds from one timestamp to another; null when either is. */
const millisSql = (from: string, to: string) => `round(extract(epoch FROM ${to} - ${from}) * 1000)::bigint`;

/** Props every creation_job_* event carries: which job, of what, made with which model and style. */
const jobPropsSql = (j: string) =>
  `'job_id', ${j}.id, 'job_type', ${j}.job_type, 'media_kind', ${j}.media_kind, 'model_id', ${j}.model_id,
   'model_version', ${j}.model_version_snapshot, 'style_id', ${j}.style_id, 'style_code', ${j}.style_code_snapshot`;

/** creation_job_submitted (ProductEvent) of a job row aliased `j` just created; `padsParam` holds the user_ref pads. */
export const submittedProductEventSql = (j: string, padsParam: string) =>
  productEventSql(
    {
      name: `'creation_job_submitted'`,
      aggregateId: `${j}.id`,
      userId: `${j}.user_id`,
      occurredAt: `${j}.created_at`,
      props: `jsonb_build_object(${jobPropsSql(j)}, 'queue', ${j}.queue, 'input_asset_id', ${j}.input_asset_id,
                'has_pet', ${j}.pet_id IS NOT NULL, 'max_attempts', ${j}.max_attempts, 'retry_of_job_id', ${j}.retry_of_job_id)`,
    },
    padsParam,
  );

/**
 * creation_job_<status> (ProductEvent) of a job row aliased `j` that just ended (succeeded, failed
 * or cancelled): its attempts, error code, output, and how long it took from creation and in its
 * last attempt.
 */
export const endedProductEventSql = (j: string, padsParam: string) =>
  productEventSql(
    {
      name: `'creation_job_' || ${j}.status`,
      aggregateId: `${j}.id`,
      userId: `${j}.user_id`,
      occurredAt: `${j}.completed_at`,
      props: `jsonb_build_object(${jobPropsSql(j)}, 'attempts', ${j}.attempt_count, 'error_code', ${j}.error_code,
                'output_asset_id', ${j}.output_asset_id, 'duration_ms', ${millisSql(`${j}.created_at`, `${j}.completed_at`)},
                'run_ms', ${millisSql(`${j}.started_at`, `${j}.completed_at`)})`,
    },
    padsParam,
  );

/** What the transitions need to write product events to `subjectPrefix` (`<root>.product.events.`) with user_refs under `key`. */
export function productEventSubjects(subjectPrefix: string, key: UserRefKey): ProductEventSubjects {
  return { subjectPrefix, userRefPads: key.sqlPads(), jobTypes: CREATION_JOB_TYPES };
}
