import { headers, type JetStreamClient } from '@atelier/nats';
import { settlePublishes, type SettleOptions } from '@atelier/outbox';
import { inSpan, SpanKind } from '@atelier/telemetry';
import type { OutboxRow } from '../db/outbox-row.js';

/** What publishing a row and settling it needs, whether the relay claimed it or a transition did. */
export type PublishableRow = Pick<
  OutboxRow,
  'id' | 'aggregate_id' | 'event_type' | 'subject' | 'dedupe_key' | 'payload' | 'trace_context' | 'available_at' | 'attempt_count'
>;

export interface OutboxPublishing {
  /** How the rows are settled after their publish (libs/outbox's settlement, on jobs.outbox). */
  settling: SettleOptions;
  publishTimeoutMs: number;
  /** Told, per published row, the seconds from its falling due to JetStream's acknowledgement. */
  publishLag?: { observe(seconds: number): void };
}

/**
 * Publishes rows this relay holds and settles each: published, refused (backed off, dead after
 * the attempts), or handed back untouched when the broker did not answer. Rows already delivered
 * another way (dispatches handed to a waiting worker, dispatch-hand-off.ts) are settled published
 * with them, in the same statement. Answers how many rows it settled, or 'unanswered'.
 */
export async function publishAndSettle(
  publishing: OutboxPublishing,
  js: JetStreamClient,
  rows: readonly PublishableRow[],
  delivered: readonly PublishableRow[] = [],
): Promise<number | 'unanswered'> {
  const results: PromiseSettledResult<unknown>[] = await Promise.allSettled(
    rows.map((row) => publishRow(js, row, publishing.publishTimeoutMs)),
  );
  const publishedAt = Date.now();
  results.forEach((result, i) => {
    if (result.status === 'fulfilled') publishing.publishLag?.observe(Math.max(0, publishedAt - rows[i]!.available_at.getTime()) / 1000);
  });
  if (delivered.length === 0) return settlePublishes(publishing.settling, rows, results);
  const done: PromiseSettledResult<unknown> = { status: 'fulfilled', value: undefined };
  return settlePublishes(publishing.settling, [...rows, ...delivered], [...results, ...delivered.map(() => done)]);
}

/**
 * A row that carries its job's trace is published in a producer span of that trace, whose
 * context travels in the message headers to the consumer. Rows without one (tracing off when
 * the job was created) are published bare: no span, no headers.
 */
function publishRow(js: JetStreamClient, row: PublishableRow, timeoutMs: number) {
  const send = (carrier?: Record<string, string>) => {
    let traceHeaders;
    if (carrier?.traceparent) {
      traceHeaders = headers();
      for (const [name, value] of Object.entries(carrier)) traceHeaders.set(name, value);
    }
    return js.publish(row.subject, JSON.stringify(row.payload), { msgID: row.dedupe_key, timeout: timeoutMs, headers: traceHeaders });
  };
  if (!row.trace_context) return send();
  return inSpan(
    `${row.event_type} publish`,
    {
      kind: SpanKind.PRODUCER,
      parent: row.trace_context,
      attributes: {
        'messaging.system': 'nats',
        'messaging.operation.type': 'publish',
        'messaging.destination.name': row.subject,
        'messaging.message.id': row.dedupe_key,
        'atelier.job.id': row.aggregate_id,
      },
    },
    send,
  );
}
