/**
 * SQL that builds outbox payloads inside the transition statements, so a transition stays one
 * round trip. The JSON follows the proto3 JSON mapping of atelier.jobs.v1 JobDispatch and
 * JobLifecycleEvent (events.proto): lowerCamelCase names, enums by their full names,
 * timestamps as RFC 3339 UTC. Ids only — never prompts or user data.
 */
const rfc3339 = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

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
