// The broker goes away for a minute. NATS is the doorbell, not the truth: creates and reads go on
// (they need only Postgres), jobs and media even start without it, the outbox holds the
// announcements without spending their attempts, and when NATS is back every job runs — none
// dead, none stranded.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
  it('accepts creates during the outage and runs them all after it, with no dead outbox row and reads answering 200', async () => {
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
    const readStatuses: number[] = [];
    const reading = (async () => {
      while (Date.now() < outageEnds) {
        readStatuses.push((await api.call('GET', `/api/v1/creation/jobs/${before.body.job.id}`)).status);
        readStatuses.push((await api.call('GET', '/api/v1/creation/catalog?mediaKind=image')).status);
        readStatuses.push((await api.call('GET', '/api/v1/creation/jobs?limit=5')).status);
        await sleep(500);
      }
    })();
    const created: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      const answer = await api.createJob(await api.stylizeBody(input, `during the outage ${i}`), `during-${i}`);
      expect(answer.status, JSON.stringify(answer.body)).toBe(201);
      created.push(answer.body.job.id);
      await sleep(8_000);
    }
    await reading;
    expect(new Set(readStatuses)).toEqual(new Set([200]));
    expect(readStatuses.length).toBeGreaterThan(100);

    await nats.start();
    await waitUntil(async () => (await checkHealth(platform.jobs.healthAddress!, 'nats')) === 'SERVING', { what: 'jobs reconnected' });
    for (const jobId of created) expect((await api.waitTerminal(jobId, 90_000)).status).toBe('succeeded');
    for (const jobId of created) expect(await chaos.charges(jobId)).toBe(1);
    const dead = await chaos.db.query(`SELECT count(*)::int AS n FROM jobs.outbox WHERE status = 'dead'`);
    expect(dead.rows[0].n).toBe(0);
  });
});
