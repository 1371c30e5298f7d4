import { describe, expect, it } from 'vitest';
import type { SqlPool } from '@atelier/db';
import type { JetStreamClient } from '@atelier/nats';
import { createLogger } from '@atelier/logging';
import { OutboxRelay } from './outbox-relay.js';

describe('outbox relay - stopping', () => {
  it('stops at once when stop() comes while it reads when the next row is due', async () => {
    let dueReads = 0;
    // No row is ever due; reading the next due time is slow, so stop() lands in the middle of it.
    const pool = {
      query: async ({ name }: { name: string }) => {
        if (name !== 'jobs.outbox_next_due') return { rows: [], rowCount: 0 };
        dueReads += 1;
        await new Promise((resolve) => setTimeout(resolve, 100));
        return { rows: [{ due: null }], rowCount: 1 };
      },
    } as unknown as SqlPool;
    const relay = new OutboxRelay({
      pool,
      broker: () => ({}) as JetStreamClient,
      logger: createLogger({ service: 'relay-test', level: 'silent' }),
      relayId: 'relay-test',
      pollIntervalMs: 60_000,
    });
    relay.start();
    while (dueReads === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const startedAt = Date.now();
    await relay.stop();
    expect(Date.now() - startedAt).toBeLessThan(1_000);
  });
});
