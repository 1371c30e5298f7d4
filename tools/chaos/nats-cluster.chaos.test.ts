// The platform on a three-node NATS cluster, every stream (and the rate-limit bucket) with a copy
// on each node. The node leading the jobs stream is killed while jobs are being created and run:
// the others elect a new leader, the services' connections move to them, and every job succeeds,
// each charged by the vendor once — no dispatch lost with the node, none run twice.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectNats, jetstreamManager, windowCountersBucket } from '@atelier/nats';
import { waitUntil } from '@atelier/testing';
import { startChaosPlatform, type ChaosPlatform } from './chaos-platform.js';

let chaos: ChaosPlatform;
beforeAll(async () => {
  chaos = await startChaosPlatform({
    natsCluster: 3,
    workers: 2,
    jobsEnv: { QUOTA_MAX_IN_FLIGHT: '50', QUOTA_DAILY_LIMIT: '100' },
  });
});
afterAll(async () => {
  await chaos?.stop();
});

/** The servers holding each of the platform's streams, and which of them leads it. */
async function placement(): Promise<Record<string, { leader?: string; servers: string[] }>> {
  const prefix = chaos.platform.natsPrefix;
  const nc = await connectNats({ servers: chaos.natsNodes.map((node) => node.url).join(','), name: 'cluster-placement' });
  try {
    const jsm = await jetstreamManager(nc);
    const streams = [`${prefix}_JOBS`, `${prefix}_JOB_EVENTS`, `KV_${windowCountersBucket(prefix)}`];
    const placed: Record<string, { leader?: string; servers: string[] }> = {};
    for (const stream of streams) {
      const { cluster, config } = await jsm.streams.info(stream);
      expect(config.num_replicas, stream).toBe(3);
      const servers = [cluster?.leader, ...(cluster?.replicas ?? []).map((replica) => replica.name)].filter((name) => name !== undefined);
      placed[stream] = { leader: cluster?.leader, servers: [...new Set(servers)].sort() };
    }
    return placed;
  } finally {
    await nc.close();
  }
}

describe('chaos - a NATS cluster node killed under load', () => {
  it('runs every job once, charged once, while the node that led the jobs stream is gone', async () => {
    const { api } = chaos;
    const input = await api.uploadPhoto();
    const body = await api.stylizeBody(input, 'on a cluster');
    const first = await api.createJob(body, 'first');
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect((await api.waitTerminal(first.body.job.id, 30_000)).status).toBe('succeeded');

    // Declared by the services with NATS_STREAM_REPLICAS=3: a copy on every node.
    const before = await placement();
    const nodeNames = chaos.natsNodes.map((_, index) => `atelier-test-${index}`);
    for (const [stream, { servers }] of Object.entries(before)) expect(servers, stream).toEqual(nodeNames);
    const jobsLeader = before[`${chaos.platform.natsPrefix}_JOBS`]!.leader!;
    const victim = chaos.natsNodes[nodeNames.indexOf(jobsLeader)]!;

    const created: string[] = [first.body.job.id];
    const create = async (key: string) => {
      const answer = await api.createJob(body, key);
      expect(answer.status, JSON.stringify(answer.body)).toBe(201);
      created.push(answer.body.job.id);
    };
    // A steady stream of creates: some dispatched and running when the node dies, some queued in
    // the outbox while the stream elects a new leader, some created after.
    for (let i = 0; i < 10; i += 1) {
      await create(`before-kill-${i}`);
      await sleep(200);
    }
    await victim.kill();
    for (let i = 0; i < 14; i += 1) {
      await create(`after-kill-${i}`);
      await sleep(200);
    }

    for (const jobId of created) expect((await api.waitTerminal(jobId, 60_000)).status, jobId).toBe('succeeded');
    for (const jobId of created) expect(await chaos.charges(jobId), `vendor submissions of ${jobId}`).toBe(1);
    const rerun = await chaos.db.query('SELECT id, attempt_count FROM jobs.generation_jobs WHERE id = ANY($1) AND attempt_count <> 1', [
      created,
    ]);
    expect(rerun.rows, 'jobs started more than once').toEqual([]);
    const dead = await chaos.db.query(`SELECT count(*)::int AS n FROM jobs.outbox WHERE status = 'dead'`);
    expect(dead.rows[0].n).toBe(0);
    // The stream has a new leader among the two nodes left. When the jobs ran fast, this comes a few
    // seconds after the kill, while the cluster may still be electing (its meta leader, or a stream's):
    // until then its API does not answer, and the look-up is asked again.
    let after: Awaited<ReturnType<typeof placement>> | undefined;
    await waitUntil(
      async () => {
        // Only the cluster not answering is waited out; a placement that answers wrong still fails the test.
        after = await placement().catch((error: unknown) => {
          if (error instanceof Error && error.name === 'AssertionError') throw error;
          return undefined;
        });
        return after?.[`${chaos.platform.natsPrefix}_JOBS`]?.leader !== undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500, what: 'a leader of the jobs stream answering after the kill' },
    );
    expect(after![`${chaos.platform.natsPrefix}_JOBS`]!.leader).not.toBe(jobsLeader);
  });
});
