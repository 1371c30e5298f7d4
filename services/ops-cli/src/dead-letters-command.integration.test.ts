import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testIdentityEnv } from '@atelier/testing';
import { runCli } from './cli.js';
import { ExitCode } from './exit-codes.js';
import { captureIo, startOpsTestEnv, waitFor, type OpsTestEnv } from './test-support/ops-test-env.js';

let env: OpsTestEnv;
/** The event the second test replays and gets published: later tests replay it again. */
let publishedEventId: string;

beforeAll(async () => {
  // One failed publish makes an outbox event dead, so a test need not wait out the backoff.
  env = await startOpsTestEnv({ OUTBOX_MAX_ATTEMPTS: '1' });
}, 60_000);

afterAll(async () => {
  await env?.stop();
});

async function cli(args: string[], extraEnv: Record<string, string> = {}) {
  const io = captureIo(env.cliEnv(extraEnv));
  const exitCode = await runCli(args, io);
  return { exitCode, out: io.out(), err: io.err() };
}

/**
 * Dispatches die the way they do in production: the broker refuses them. Here the work-queue
 * stream takes no message larger than a byte, so every publish is answered "message size exceeds
 * maximum allowed" and, its attempts spent, the row is dead. (A stream that is simply missing
 * kills nothing: the relay declares it again.) Answers the ids of the jobs whose dispatch died;
 * the stream takes messages again afterwards.
 */
async function killDispatches(count: number): Promise<string[]> {
  // Only the new dispatches may die: an event still in flight (a replay) would die with them.
  await waitFor('the outbox to be drained', async () => (await env.admin.getQueueStats({})).outboxPending === 0);
  const deadBefore = (await env.admin.getQueueStats({})).outboxDead;
  const { config } = await env.jsm.streams.info(env.topology.jobsStream);
  await env.jsm.streams.update(env.topology.jobsStream, { ...config, max_msg_size: 1 });
  try {
    const jobIds = await env.createCanaries(count);
    await waitFor('the dispatches to die', async () => (await env.admin.getQueueStats({})).outboxDead === deadBefore + count);
    return jobIds;
  } finally {
    await env.jsm.streams.update(env.topology.jobsStream, { ...config, max_msg_size: -1 });
  }
}

describe('dead-letters - through the jobs admin API', () => {
  it('needs an operator certificate, and one that proves the ops identity', async () => {
    const missing = await cli(['dead-letters', 'list'], { GRPC_TLS_CERT_FILE: '', GRPC_TLS_KEY_FILE: '' });
    expect(missing.exitCode).not.toBe(ExitCode.OK);
    expect(missing.err).toContain(
      'the jobs admin API needs an operator certificate: set GRPC_TLS_CA_FILE, GRPC_TLS_CERT_FILE and GRPC_TLS_KEY_FILE',
    );
    const worker = await testIdentityEnv('worker');
    const wrong = await cli(['dead-letters', 'list'], {
      GRPC_TLS_CERT_FILE: worker.GRPC_TLS_CERT_FILE,
      GRPC_TLS_KEY_FILE: worker.GRPC_TLS_KEY_FILE,
    });
    expect(wrong.exitCode).not.toBe(ExitCode.OK);
    expect(wrong.err).toContain('service worker may not call /atelier.jobs.v1.JobsAdminService/ListDeadOutboxEvents');
  });

  it('says so when there are no dead events', async () => {
    const { exitCode, out } = await cli(['dead-letters', 'list']);
    expect(exitCode).toBe(ExitCode.OK);
    expect(out).toBe('No dead outbox events.\n');
  });

  it('lists a dispatch the relay could not publish, and a replay gets it published', async () => {
    const [jobId] = await killDispatches(1);

    const listed = await cli(['dead-letters', 'list', '--json']);
    expect(listed.exitCode).toBe(ExitCode.OK);
    const { events, more } = JSON.parse(listed.out);
    expect(more).toBe(false);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      aggregateId: jobId,
      eventType: 'job.dispatch',
      subject: env.topology.dispatchSubject('interactive'),
      status: 'dead',
      attemptCount: 1,
      publishedAt: null,
    });
    expect(events[0].lastError).toBeTruthy();
    const eventId: string = events[0].id;
    publishedEventId = eventId;

    const table = await cli(['dead-letters', 'list']);
    expect(table.out).toMatch(
      new RegExp(`^${eventId}\\s+job\\.dispatch\\s+${jobId}\\s+\\S+\\.jobs\\.dispatch\\.interactive\\s+1\\s+\\d{4}-`, 'm'),
    );
    expect(table.out).toContain('1 dead event.');

    const messagesBefore = (await env.jsm.streams.info(env.topology.jobsStream)).state.messages;
    const replayed = await cli(['dead-letters', 'replay', eventId, '--operator', 'ops-test']);
    expect(replayed).toMatchObject({ exitCode: ExitCode.OK, err: '' });
    expect(replayed.out).toBe(`replayed ${eventId}: job.dispatch of job ${jobId} is pending again; the relay publishes it shortly\n`);

    await waitFor('the replayed dispatch to be published', async () => {
      const stats = await env.admin.getQueueStats({});
      return stats.outboxDead === 0 && stats.outboxPending === 0;
    });
    expect((await env.jsm.streams.info(env.topology.jobsStream)).state.messages).toBe(messagesBefore + 1);
    expect((await env.admin.listDeadOutboxEvents({ pageSize: 0, pageToken: '' })).events).toEqual([]);
  });

  it('reports each refused replay with its reason, goes on with the next id, and exits 1', async () => {
    const [jobId] = await killDispatches(1);
    const { events } = await env.admin.listDeadOutboxEvents({ pageSize: 0, pageToken: '' });
    const dead = events.find((e) => e.aggregateId === jobId)!;
    const published = publishedEventId;

    const { exitCode, out, err } = await cli(['dead-letters', 'replay', published, '999999999', dead.id]);
    expect(exitCode).toBe(ExitCode.FAILURE);
    expect(err).toContain(`atelier-ops: ${published} not replayed: OUTBOX_EVENT_NOT_DEAD: the event is published, not dead`);
    expect(err).toContain('atelier-ops: 999999999 not replayed: OUTBOX_EVENT_NOT_FOUND: outbox event not found');
    expect(out).toContain(`replayed ${dead.id}: job.dispatch of job ${jobId} is pending again`);
    const after = await env.admin.listDeadOutboxEvents({ pageSize: 0, pageToken: '' });
    expect(after.events.some((e) => e.id === dead.id)).toBe(false);
    await waitFor('the replayed dispatch to be published', async () => (await env.admin.getQueueStats({})).outboxPending === 0);
  });

  it('shows at most --limit events and says that more exist', async () => {
    await killDispatches(3);
    const { exitCode, out } = await cli(['dead-letters', 'list', '--limit', '2', '--json']);
    expect(exitCode).toBe(ExitCode.OK);
    const { events, more } = JSON.parse(out);
    expect(events).toHaveLength(2);
    expect(more).toBe(true);
    expect(Number(events[0].id)).toBeLessThan(Number(events[1].id)); // oldest first
    expect((await cli(['dead-letters', 'list', '--limit', '2'])).out).toContain(
      '2 dead events shown; more exist (raise --limit, at most 1000).',
    );
    const all = JSON.parse((await cli(['dead-letters', 'list', '--json'])).out);
    expect(all).toMatchObject({ more: false });
    expect(all.events).toHaveLength(3);
    expect(all.events.every((e: { status: string }) => e.status === 'dead')).toBe(true);
    expect((await env.admin.getQueueStats({})).outboxDead).toBe(3);
  });

  it('audits every replay call, refused ones included, newest first, in cursor pages', async () => {
    // The earlier tests replayed: one published event (twice: replayed, then refused as not dead),
    // an unknown id, and a dead one — each call left its row.
    const all = JSON.parse((await cli(['dead-letters', 'audit', '--json'])).out);
    expect(all.more).toBe(false);
    expect(all.replays.map((r: { outboxId: string; result: string }) => [r.outboxId, r.result])).toEqual(
      expect.arrayContaining([
        [publishedEventId, 'replayed'],
        [publishedEventId, 'not_dead'],
        ['999999999', 'not_found'],
      ]),
    );
    expect(all.replays).toHaveLength(4);
    expect(all.replays[3]).toMatchObject({ outboxId: publishedEventId, operatorId: 'ops-test', result: 'replayed' });
    const times = all.replays.map((r: { replayedAt: string }) => Date.parse(r.replayedAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);

    const page = await cli(['dead-letters', 'audit', '--limit', '3']);
    expect(page.exitCode).toBe(ExitCode.OK);
    expect(page.out).toMatch(/^WHEN\s+OPERATOR\s+EVENT\s+RESULT$/m);
    expect(page.out).toMatch(new RegExp(`^\\d{4}-\\S+Z\\s+\\S+\\s+999999999\\s+not found$`, 'm'));
    expect(page.out).toContain('3 replays shown; more exist (raise --limit, at most 1000).');
  });

  it('names JOBS_ADDR and exits 69 when jobs cannot be reached, and stops replaying at the first such failure', async () => {
    const listed = await cli(['dead-letters', 'list'], { JOBS_ADDR: '127.0.0.1:1' });
    expect(listed.exitCode).toBe(ExitCode.UNAVAILABLE);
    expect(listed.err).toMatch(
      /^atelier-ops: JOBS_UNREACHABLE: cannot reach the jobs admin API at 127\.0\.0\.1:1 \(JOBS_ADDR\): connect ECONNREFUSED/,
    );
    expect(listed.err).not.toMatch(/\n\s+at /);

    const replayed = await cli(['dead-letters', 'replay', '1', '2', '3'], { JOBS_ADDR: '127.0.0.1:1' });
    expect(replayed.exitCode).toBe(ExitCode.UNAVAILABLE);
    expect(replayed.err).toContain('atelier-ops: 1 not replayed: JOBS_UNREACHABLE');
    expect(replayed.err).toContain('atelier-ops: not attempted: 2 3');
    expect((await cli(['dead-letters', 'audit'], { JOBS_ADDR: '127.0.0.1:1' })).exitCode).toBe(ExitCode.UNAVAILABLE);
  });
});
