import { enumWords, jobsAdminV1 } from '@atelier/contracts';
import { oneLine, plural, table } from './text-format.js';

/** Dead outbox events and the replay audit, for a terminal and for scripts. Pure. */

const OUTBOX_STATUS_WORDS = enumWords(jobsAdminV1.OutboxStatus);
const REPLAY_RESULT_WORDS = enumWords(jobsAdminV1.OutboxReplayResult);

export function outboxStatusName(status: jobsAdminV1.OutboxStatus): string {
  return OUTBOX_STATUS_WORDS.wordOf(status) ?? 'unspecified';
}

/** ISO 8601 to the second: the outbox keeps microseconds nobody reads at a terminal. */
function timestamp(date: Date | undefined): string {
  return date ? date.toISOString().replace(/\.\d{3}Z$/, 'Z') : '-';
}

export function formatDeadLettersTable(events: readonly jobsAdminV1.OutboxEvent[], more: boolean): string {
  if (events.length === 0) return 'No dead outbox events.\n';
  const lines = table(
    ['ID', 'EVENT', 'JOB', 'SUBJECT', 'ATTEMPTS', 'CREATED', 'LAST ERROR'],
    events.map((e) => [
      e.id,
      e.eventType,
      e.aggregateId,
      e.subject,
      String(e.attemptCount),
      timestamp(e.createdAt),
      oneLine(e.lastError ?? '-', 80),
    ]),
    '',
  );
  lines.push('', `${plural(events.length, 'dead event')}${more ? ' shown; more exist (raise --limit, at most 1000)' : ''}.`);
  lines.push('Fix the cause (the stream, NATS), then: atelier-ops dead-letters replay <id>...');
  return `${lines.join('\n')}\n`;
}

/** `{ events, more }`; an event's fields as the admin API names them, times in ISO 8601, absent values null. */
export function formatDeadLettersJson(events: readonly jobsAdminV1.OutboxEvent[], more: boolean): string {
  const document = {
    events: events.map((e) => ({
      id: e.id,
      aggregateId: e.aggregateId,
      eventType: e.eventType,
      subject: e.subject,
      dedupeKey: e.dedupeKey,
      status: outboxStatusName(e.status),
      attemptCount: e.attemptCount,
      lastError: e.lastError ?? null,
      createdAt: e.createdAt?.toISOString() ?? null,
      availableAt: e.availableAt?.toISOString() ?? null,
      publishedAt: e.publishedAt?.toISOString() ?? null,
    })),
    more,
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}

function replayResultName(result: jobsAdminV1.OutboxReplayResult): string {
  return REPLAY_RESULT_WORDS.wordOf(result) ?? 'unspecified';
}

/** The replay audit, newest first: who asked to replay which event, when, and what jobs found. */
export function formatReplayAuditTable(replays: readonly jobsAdminV1.OutboxReplay[], more: boolean): string {
  if (replays.length === 0) return 'No replays recorded.\n';
  const lines = table(
    ['WHEN', 'OPERATOR', 'EVENT', 'RESULT'],
    replays.map((r) => [timestamp(r.replayedAt), r.operatorId, r.outboxId, replayResultName(r.result).replace('_', ' ')]),
    '',
  );
  lines.push('', `${plural(replays.length, 'replay')}${more ? ' shown; more exist (raise --limit, at most 1000)' : ''}.`);
  return `${lines.join('\n')}\n`;
}

/** `{ replays: [{ id, outboxId, operatorId, result, replayedAt }], more }`; result as a word (replayed, not_dead, not_found). */
export function formatReplayAuditJson(replays: readonly jobsAdminV1.OutboxReplay[], more: boolean): string {
  const document = {
    replays: replays.map((r) => ({
      id: String(r.id),
      outboxId: r.outboxId,
      operatorId: r.operatorId,
      result: replayResultName(r.result),
      replayedAt: r.replayedAt?.toISOString() ?? null,
    })),
    more,
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}
