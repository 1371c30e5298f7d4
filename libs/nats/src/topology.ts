/**
 * The JetStream topology of Atelier, declared in code. Every name derives from one prefix
 * (NATS_STREAM_PREFIX) so that test runs, or two environments on one server, never collide:
 *
 *   stream  <PREFIX>_JOBS        work queue, file storage: dispatch messages, one per ready job,
 *                                and control tasks any worker may execute
 *     <root>.jobs.dispatch.interactive   consumed by durable `worker-interactive`
 *     <root>.jobs.dispatch.background    consumed by durable `worker-background`
 *     <root>.jobs.control.provider-cancel  consumed by durable `worker-provider-cancel`
 *   stream  <PREFIX>_JOB_EVENTS  limits retention: lifecycle events for anyone who cares
 *     <root>.jobs.events.<type>          e.g. <root>.jobs.events.succeeded
 *
 *   stream  <PREFIX>_ACCOUNT_EVENTS  limits retention, kept long: account events every service holding
 *                                user data consumes with a durable consumer of its own
 *     <root>.accounts.events.deleted     AccountDeletedEvent (jobs' outbox), consumed by `<service>-account-deletion`
 *
 *   stream  <PREFIX>_PRODUCT_EVENTS  limits retention, kept a week: the product events of creations
 *                                (ProductEvent, product_events.proto), from the outboxes of jobs, media
 *                                and community, for the app's product analytics
 *     <root>.product.events.<event_name>   e.g. <root>.product.events.creation_job_succeeded
 *
 *   core NATS (no stream): catalog change notices, a doorbell for jobs' catalog cache
 *     <root>.catalog.events.changed      catalog-changes.ts
 *
 * where <root> is the prefix in lower case (`ATELIER` → `atelier.jobs.dispatch.interactive`).
 */
export const JOB_QUEUES = ['interactive', 'background'] as const;
export type JobQueueName = (typeof JOB_QUEUES)[number];

/** Tasks workers execute for the jobs service, beside running jobs. */
export const CONTROL_TASKS = ['provider-cancel'] as const;
export type ControlTask = (typeof CONTROL_TASKS)[number];

const PREFIX_PATTERN = /^[A-Z][A-Z0-9_]{0,31}$/;

export interface JobsTopology {
  readonly prefix: string;
  readonly jobsStream: string;
  readonly eventsStream: string;
  readonly accountEventsStream: string;
  readonly productEventsStream: string;
  /** Operators' events (a budget nearly spent): `<root>.ops.events.>`, kept a month. */
  readonly opsEventsStream: string;
  /** Where an operators' event of this name goes (`<root>.ops.events.<eventName>`). */
  opsEventSubject(eventName: string): string;
  /** Where a product event of this name goes (`<root>.product.events.<eventName>`). */
  productEventSubject(eventName: string): string;
  /** `<root>.product.events.>`: every product event. */
  readonly allProductEventsSubject: string;
  /** AccountDeletedEvent: a user asked for their account to be deleted. */
  readonly accountDeletedSubject: string;
  /** The durable consumer of account deletions of one service (all its replicas share it). */
  accountDeletionConsumerName(service: string): string;
  dispatchSubject(queue: JobQueueName): string;
  controlSubject(task: ControlTask): string;
  /** The durable consumer workers share for a control task. */
  controlConsumerName(task: ControlTask): string;
  eventSubject(eventType: string): string;
  /** `<root>.jobs.events.>`: every lifecycle event. */
  readonly allEventsSubject: string;
  consumerName(queue: JobQueueName): string;
}

/** The subjects' root of a NATS_STREAM_PREFIX (its lower case), once the prefix is checked. */
export function subjectRoot(prefix: string): string {
  if (!PREFIX_PATTERN.test(prefix)) throw new Error(`NATS stream prefix must match ${PREFIX_PATTERN}, got "${prefix}"`);
  return prefix.toLowerCase();
}

export function jobsTopology(prefix: string): JobsTopology {
  const root = subjectRoot(prefix);
  return {
    prefix,
    jobsStream: `${prefix}_JOBS`,
    eventsStream: `${prefix}_JOB_EVENTS`,
    accountEventsStream: `${prefix}_ACCOUNT_EVENTS`,
    productEventsStream: `${prefix}_PRODUCT_EVENTS`,
    opsEventsStream: `${prefix}_OPS_EVENTS`,
    opsEventSubject: (eventName) => `${root}.ops.events.${eventName}`,
    productEventSubject: (eventName) => `${root}.product.events.${eventName}`,
    allProductEventsSubject: `${root}.product.events.>`,
    accountDeletedSubject: `${root}.accounts.events.deleted`,
    accountDeletionConsumerName: (service) => `${service}-account-deletion`,
    dispatchSubject: (queue) => `${root}.jobs.dispatch.${queue}`,
    controlSubject: (task) => `${root}.jobs.control.${task}`,
    controlConsumerName: (task) => `worker-${task}`,
    eventSubject: (eventType) => `${root}.jobs.events.${eventType}`,
    allEventsSubject: `${root}.jobs.events.>`,
    consumerName: (queue) => `worker-${queue}`,
  };
}
