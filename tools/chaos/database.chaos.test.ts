// Postgres drops every connection, twice, while the app reads and creates at a few hundred
// requests a second. What users see is a short 503 with Retry-After, never a 500; the services
// heal themselves within seconds, and the next job succeeds.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '@atelier/testing';
import { startChaosPlatform, type ChaosPlatform } from './chaos-platform.js';

let chaos: ChaosPlatform;
beforeAll(async () => {
  chaos = await startChaosPlatform({ workers: 1 });
});
afterAll(async () => {
  await chaos?.stop();
});

interface Answered {
  at: number;
  status: number;
  retryAfter: string | null;
  route: string;
}

describe('chaos - every database backend terminated, twice, under load', () => {
  it('answers no 500, only 200s again within 10 s, and the next job succeeds', async () => {
    const { api } = chaos;
    const input = await api.uploadPhoto();
    const body = await api.stylizeBody(input, 'under load');
    const known = await api.createJob(body, 'known');
    expect((await api.waitTerminal(known.body.job.id)).status).toBe('succeeded');

    const answers: Answered[] = [];
    let stop = false;
    let created = 0;
    const record = async (route: string, call: () => Promise<{ status: number; headers: Headers }>) => {
      const at = Date.now();
      const answer = await call();
      answers.push({ at, status: answer.status, retryAfter: answer.headers.get('retry-after'), route });
    };
    // The succeeded job is answered from the gateway's memory of finished jobs; the newest one
    // (queued or running) is read through jobs and its database (a queued one at most every 2 s,
    // from the view jobs pushes in between: QUEUED_VIEW_FRESH_MS).
    let newest: string | undefined;
    const reader = async () => {
      while (!stop) {
        await record('job', () => api.call('GET', `/api/v1/creation/jobs/${known.body.job.id}`));
        if (newest) await record('new job', () => api.call('GET', `/api/v1/creation/jobs/${newest}`));
        await record('catalog', () => api.call('GET', '/api/v1/creation/catalog?mediaKind=image'));
        await record('list', () => api.call('GET', '/api/v1/creation/jobs?limit=5'));
      }
    };
    const creator = async (n: number) => {
      while (!stop) {
        await record('create', async () => {
          const answer = await api.createJob(body, `load-${n}-${(created += 1)}`);
          if (answer.status === 201) newest = answer.body.job.id;
          return answer;
        });
        await sleep(300);
      }
    };
    const load = [...Array.from({ length: 12 }, reader), creator(0)];

    // Every backend of the platform's database goes, whichever service holds it: answers which
    // services (by their application_name) lost connections.
    const terminateAll = async () =>
      (
        await chaos.db.query<{ app: string }>(
          // The others' backends first (a WHERE would not promise to test the pid before terminating).
          `WITH others AS MATERIALIZED (
             SELECT pid, application_name FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid())
           SELECT DISTINCT application_name AS app FROM others WHERE pg_terminate_backend(pid)`,
        )
      ).rows.map((row) => row.app);
    // The services under this load: jobs (creates, reads of the newest job, lists), its LISTEN
    // connection, and media (each create checks its input). Each cut waits until all of them hold
    // connections again, so that it lands on every one of them (a CI run had a cut find jobs and its
    // listener with none, 4 s after the other cut); they have 10 s, as they have to heal.
    const underLoad = ['jobs', 'jobs-listener', 'media'];
    const reconnected = async () => {
      let missing: string[] = [];
      await waitUntil(
        async () => {
          const { rows } = await chaos.db.query<{ app: string }>(
            `SELECT DISTINCT application_name AS app FROM pg_stat_activity WHERE datname = current_database()`,
          );
          const connected = new Set(rows.map((row) => row.app));
          missing = underLoad.filter((app) => !connected.has(app));
          return missing.length === 0;
        },
        { what: 'every service under load connected to the database', timeoutMs: 10_000, intervalMs: 100 },
      ).catch((error: unknown) => {
        // What jobs said meanwhile (LOG_LEVEL=warn in this suite): why it may not have reconnected.
        const jobsSaid = chaos.platform.jobs.output().split('\n').slice(-20).join('\n');
        const jobsState = chaos.platform.jobs.child.exitCode === null ? 'running' : `exited ${chaos.platform.jobs.child.exitCode}`;
        throw new Error(
          `${(error as Error).message}: ${missing.join(', ')} still without a connection; jobs is ${jobsState}, its last lines:\n${jobsSaid}`,
        );
      });
    };
    let first: string[] = [];
    let second: string[] = [];
    let lastTermination = 0;
    try {
      await sleep(3_000);
      await reconnected();
      first = await terminateAll();
      await sleep(4_000);
      await reconnected();
      second = await terminateAll();
      lastTermination = Date.now();
      await sleep(14_000);
    } finally {
      // Also when a wait above fails: the load must not outlive the platform.
      stop = true;
      await Promise.allSettled(load);
    }
    await Promise.all(load);

    // Both times the connections of the services under this load were cut.
    expect(first, 'the first cut').toEqual(expect.arrayContaining(underLoad));
    expect(second, 'the second cut').toEqual(expect.arrayContaining(underLoad));
    const seconds = (answers.at(-1)!.at - answers[0]!.at) / 1000;
    // Shows the terminations landed under load (12 readers in a loop), not a speed goal (that is
    // bench/): a busy machine, CI beside other work, has been seen at 98 requests a second.
    expect(answers.length / seconds, 'requests per second').toBeGreaterThan(40);
    const statuses = new Set(answers.map((a) => a.status));
    expect(
      [...statuses].filter((status) => ![200, 201, 503].includes(status)),
      `statuses ${[...statuses]}`,
    ).toEqual([]);
    for (const unavailable of answers.filter((a) => a.status === 503)) expect(Number(unavailable.retryAfter)).toBeGreaterThan(0);
    const late = answers.filter((a) => a.at > lastTermination + 10_000);
    expect(late.length).toBeGreaterThan(100);
    expect(
      late.filter((a) => a.status >= 300),
      'answers after the last termination + 10 s',
    ).toEqual([]);

    const after = await api.createJob(body, 'after-the-blips');
    expect(after.status).toBe(201);
    expect((await api.waitTerminal(after.body.job.id, 60_000)).status).toBe('succeeded');
  });
});
