// The broker goes away for a minute. NATS is the doorbell, not the truth: creates and reads go on
// (they need only Postgres), jobs and media even start without it, the outbox holds the
// announcements without spending their attempts, and when NATS is back every job runs — none
// dead, none stranded — and each of their product events is published once.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectNats, jetstreamManager, jobsTopology } from '@atelier/nats';
import { checkHealth, waitUntil } from '@atelier/testing';
import { startChaosPlatform, type ChaosPlatform } from './chaos-platform.js';

let chaos: ChaosPlatform;
beforeAll(async () => {
  chaos = await startChaosPlatform({
    workers: 1,
    jobsEnv: { OUTBOX_MAX_ATTEMPTS: '3', QUOTA_MAX_IN_FLIGHT: '20', QUOTA_DAILY_LIMIT: '100' },
  });
});
afterAll(async () => {
  await chaos?.stop();
});

describe('chaos - NATS down for 60 s', () => {
  it('accepts creates during the outage and runs them all after it, with no dead outbox row, each product event once and reads answering 200', async () => {
    const { api, nats } = chaos;
    const input = await api.uploadPhoto();
    const before = await api.createJob(await api.stylizeBody(input, 'before the outage'), 'before');
    expect((await api.waitTerminal(before.body.job.id)).status).toBe('succeeded');

    await nats.kill();
    const outageEnds = Date.now() + 60_000;
    // jobs and media start while NATS is down: they serve, and say the broker is missing.
    const { platform } = chaos;
    await Promise.all([platform.jobs.kill(), platform.media.kill()]);
    await Promise.all([platform.restart('jobs'), platform.restart('media')]);
    for (const service of [platform.jobs, platform.media]) {
      expect(await checkHealth(service.healthAddress!)).toBe('SERVING');
      expect(await checkHealth(service.healthAddress!, 'nats')).toBe('NOT_SERVING');
    }
    // The gateway finds the restarted jobs and media again within its reconnect backoff (≤ 2 s; a
    // 503 with Retry-After meanwhile, as for any restart): the outage's reads and creates start
    // after every read answers. (The job's own read alone proves nothing: its ended view is
    // remembered by the gateway; the list asks jobs, and media for the output's link.)
    const reads = [
      `/api/v1/creation/jobs/${before.body.job.id}`,
      '/api/v1/creation/catalog?mediaKind=image',
      '/api/v1/creation/jobs?limit=5',
    ];
    await waitUntil(
      async () => (await Promise.all(reads.map(async (path) => (await api.call('GET', path)).status))).every((status) => status === 200),
      {
        what: 'the gateway reaches the restarted jobs and media',
        timeoutMs: 10_000,
      },
    );
    const readStatuses: number[] = [];
    const refusedReads: string[] = [];
    const reading = (async () => {
      while (Date.now() < outageEnds) {
        for (const path of reads) {
          const answer = await api.call('GET', path);
          readStatuses.push(answer.status);
          if (answer.status !== 200)
            refusedReads.push(
              `${answer.status} ${path} ${60_000 - (outageEnds - Date.now())} ms into the outage: ${JSON.stringify(answer.body)}`,
            );
        }
        await sleep(500);
      }
    })();
    const created: string[] = [];
    try {
      for (let i = 0; i < 5; i += 1) {
        const body = await api.stylizeBody(input, `during the outage ${i}`);
        let answer = await api.createJob(body, `during-${i}`);
        if (answer.status === 503) {
          // The first create after jobs and media restarted together can find jobs' channel to
          // media still in its reconnect backoff (seen in CI: 503 with Retry-After, nothing in
          // the logs). As the app does: once more after Retry-After, with the same key (it cannot
          // make a second job). Printed with what the services said, so another cause shows.
          console.warn(
            `broker chaos: create ${i} answered 503 during the outage (${JSON.stringify(answer.body)}); the services said:\n` +
              ['gateway', 'jobs', 'catalog', 'media']
                .map((name) => `--- ${name}\n${platform[name as 'jobs'].output().slice(-2_000)}`)
                .join('\n'),
          );
          await sleep(Number(answer.headers.get('retry-after') ?? 2) * 1_000);
          answer = await api.createJob(body, `during-${i}`);
        }
        // 201, or 200: the first try's job, committed before its answer was lost.
        expect([200, 201], JSON.stringify(answer.body)).toContain(answer.status);
        created.push(answer.body.job.id);
        await sleep(8_000);
      }
    } finally {
      await reading; // never left running past the test, into a stopped platform
    }
    expect(new Set(readStatuses), refusedReads.join('\n')).toEqual(new Set([200]));
    expect(readStatuses.length).toBeGreaterThan(100);

    await nats.start();
    await waitUntil(async () => (await checkHealth(platform.jobs.healthAddress!, 'nats')) === 'SERVING', { what: 'jobs reconnected' });
    for (const jobId of created) expect((await api.waitTerminal(jobId, 90_000)).status).toBe('succeeded');
    for (const jobId of created) expect(await chaos.charges(jobId)).toBe(1);
    const dead = await chaos.db.query(`SELECT count(*)::int AS n FROM jobs.outbox WHERE status = 'dead'`);
    expect(dead.rows[0].n).toBe(0);

    // The product events the outage held back: each job's submitted and succeeded, once each.
    const wanted = created.flatMap((jobId) => [`creation_job_submitted:${jobId}`, `creation_job_succeeded:${jobId}`]);
    let ids: string[] = [];
    await waitUntil(
      async () => {
        ids = await productEventIds(platform.natsUrl, jobsTopology(platform.natsPrefix).productEventsStream);
        return wanted.every((id) => ids.includes(id));
      },
      { what: 'the held-back product events are published', timeoutMs: 30_000 },
    );
    for (const id of wanted)
      expect(
        ids.filter((seen) => seen === id),
        id,
      ).toHaveLength(1);
  });
});

/** The event ids of every message of the product events stream, in stream order. */
async function productEventIds(natsUrl: string, stream: string): Promise<string[]> {
  const nats = await connectNats({ servers: natsUrl, name: 'broker-chaos-product-events' });
  try {
    const jsm = await jetstreamManager(nats);
    const { state } = await jsm.streams.info(stream);
    const ids: string[] = [];
    for (let seq = state.first_seq; state.messages > 0 && seq <= state.last_seq; seq += 1) {
      const message = await jsm.streams.getMessage(stream, { seq }).catch(() => null);
      if (message) ids.push((message.json() as { eventId: string }).eventId);
    }
    return ids;
  } finally {
    await nats.close();
  }
}
