import { JOB_STATUS_WORDS, TERMINAL_JOB_STATUSES } from '@atelier/contracts';

/**
 * The event types an endpoint may subscribe to: the job lifecycle events jobs publishes, one per
 * job when it ends (events.proto JobLifecycleEvent.event_type, `job.<status>`).
 */
export const WEBHOOK_EVENT_TYPES: readonly string[] = [...TERMINAL_JOB_STATUSES].map((status) => `job.${JOB_STATUS_WORDS.wordOf(status)}`);

/** Whether an endpoint subscribed to `eventTypes` (none: every type) wants `eventType`. */
export function wantsEvent(eventTypes: readonly string[], eventType: string): boolean {
  return eventTypes.length === 0 || eventTypes.includes(eventType);
}
