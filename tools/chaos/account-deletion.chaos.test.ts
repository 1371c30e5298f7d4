// An account's deletion survives the death of the service doing it: media is SIGKILLed halfway
// through deleting a user's images and comes back; the deletion event it had not acked comes back
// to it, it resumes where it stopped, and the deletion completes with nothing of the user left.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '@atelier/testing';
import { startChaosPlatform, type ChaosPlatform } from './chaos-platform.js';

let chaos: ChaosPlatform;
beforeAll(async () => {
  // A killed replica's event comes back after 3 s instead of a minute.
  chaos = await startChaosPlatform({ workers: 0, webhooks: {}, env: { ACCOUNT_DELETION_ACK_WAIT_MS: '3000' } });
});
afterAll(async () => {
  await chaos?.stop();
});

type Deletion = { status: string; parts: { service: string; status: string; removed: number }[] };
/** Enough images that media's sweep (100 a transaction) takes seconds: time to kill it mid-way. */
const SYNTHETIC_ASSETS = 20_000;

describe('account deletion under faults', () => {
  it('finishes after media is SIGKILLed mid-deletion and restarted', async () => {
    const user = `erin-${process.pid}`;
    const api = chaos.api.as(await chaos.tokenFor(user));
    const photos = await Promise.all([api.uploadPhoto(), api.uploadPhoto()]);
    const urls = await Promise.all(
      photos.map(async (id) => (await api.call<{ url: string }>('GET', `/api/v1/media/assets/${id}`)).body.url),
    );
    for (const url of urls) expect((await fetch(url)).status).toBe(200);
    await chaos.db.query(
      `INSERT INTO media.assets (id, owner_user_id, purpose, content_type, size_bytes, sha256, width, height, storage_key, status, ready_at)
       SELECT gen_random_uuid(), $1::text, 'post_image', 'image/png', 1000, decode(repeat('ab', 32), 'hex'), 100, 100,
              'synthetic/' || $1::text || '/' || n, 'ready', now()
         FROM generate_series(1, $2::int) AS n`,
      [user, SYNTHETIC_ASSETS],
    );

    expect((await api.call('DELETE', '/api/v1/me')).status).toBe(202);
    const progress = async () =>
      (
        await chaos.db.query<{ removed: number; completed_at: Date | null }>(
          `SELECT removed, completed_at FROM media.account_deletions WHERE user_id = $1`,
          [user],
        )
      ).rows[0];
    await waitUntil(async () => ((await progress())?.removed ?? 0) > 0, { what: 'media to start deleting', timeoutMs: 20_000 });
    await chaos.platform.media.kill();
    const cut = await progress();
    expect(cut!.completed_at, 'media was killed before it finished').toBeNull();
    const left = Number((await chaos.db.query(`SELECT count(*) FROM media.assets WHERE owner_user_id = $1`, [user])).rows[0].count);
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThan(SYNTHETIC_ASSETS + photos.length);

    // While media is down the progress is a 503 with Retry-After, never a 500.
    const meanwhile = await api.call('GET', '/api/v1/me/deletion');
    expect(meanwhile.status).toBe(503);
    expect(Number(meanwhile.headers.get('retry-after'))).toBeGreaterThan(0);

    await chaos.platform.restart('media');
    let deletion: Deletion | undefined;
    await waitUntil(async () => (deletion = (await api.call<Deletion>('GET', '/api/v1/me/deletion')).body).status === 'completed', {
      what: 'the deletion to complete after the restart',
      timeoutMs: 90_000,
    });
    expect(deletion!.parts.find((part) => part.service === 'media')).toMatchObject({
      status: 'completed',
      removed: SYNTHETIC_ASSETS + photos.length,
    });
    expect(Number((await chaos.db.query(`SELECT count(*) FROM media.assets WHERE owner_user_id = $1`, [user])).rows[0].count)).toBe(0);
    for (const url of urls) expect((await fetch(url)).status).toBe(404);
  }, 180_000);
});
