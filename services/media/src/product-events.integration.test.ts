import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mediaV1 } from '@atelier/contracts';
import { UserRefKey } from '@atelier/outbox';
import { testProductEventsKey } from '@atelier/testing';
import { startMediaHarness, type MediaHarness } from './test-support/media-harness.js';

// creation_upload_completed commits with the upload's completion or not at all: one row in
// media.outbox per completed ai_input upload, none for a refused completion, a replay, or
// another purpose; ids and facts only.

let h: MediaHarness;
const OWNER = `events-owner-${process.pid}`;

beforeAll(async () => {
  h = await startMediaHarness();
}, 60_000);

afterAll(async () => {
  await h?.stop();
});

const png = (width = 320, height = 200) =>
  sharp({ create: { width, height, channels: 3, background: { r: 200, g: 120, b: 40 } } })
    .png()
    .toBuffer();

/** Creates an upload and PUTs its bytes (unless `put` is null); answers its id, with a way to PUT later. */
async function upload(bytes: Buffer, options: { purpose?: mediaV1.AssetPurpose; put?: Buffer | null } = {}) {
  const created = await h.client.createUpload({
    ownerUserId: OWNER,
    purpose: options.purpose ?? mediaV1.AssetPurpose.AI_INPUT,
    contentType: 'image/png',
    sizeBytes: bytes.length,
  });
  const put = async (body: Buffer) =>
    expect((await fetch(created.uploadUrl, { method: 'PUT', headers: created.uploadHeaders, body })).status).toBe(200);
  if (options.put !== null) await put(options.put ?? bytes);
  return { id: created.asset!.id, put };
}

async function eventsOf(assetId: string) {
  const { rows } = await h.pool.query<{
    event_type: string;
    subject: string;
    dedupe_key: string;
    status: string;
    payload: Record<string, unknown>;
  }>(`SELECT event_type, subject, dedupe_key, status, payload FROM media.outbox WHERE aggregate_id = $1 ORDER BY id`, [assetId]);
  return rows;
}

describe('media product events - creation_upload_completed', () => {
  it('completing an ai_input upload writes its event once, with the facts of the image and nothing of the user or the URL', async () => {
    const bytes = await png();
    const { id: assetId } = await upload(bytes);
    const { asset } = await h.client.completeUpload({ assetId, ownerUserId: OWNER });
    const { rows } = await h.pool.query<{ created_at: Date; ready_at: Date }>(
      'SELECT created_at, ready_at FROM media.assets WHERE id = $1',
      [assetId],
    );
    const [events, again] = [await eventsOf(assetId), await h.client.completeUpload({ assetId, ownerUserId: OWNER })];
    expect(again.asset!.id).toBe(asset!.id);
    expect(await eventsOf(assetId)).toEqual(events);
    expect(events).toEqual([
      {
        event_type: 'creation_upload_completed',
        subject: 'media_test.product.events.creation_upload_completed',
        dedupe_key: `creation_upload_completed:${assetId}`,
        status: 'pending',
        payload: {
          eventId: `creation_upload_completed:${assetId}`,
          eventName: 'creation_upload_completed',
          occurredAt: rows[0]!.ready_at.toISOString(),
          userRef: new UserRefKey(testProductEventsKey()).refOf(OWNER),
          props: {
            asset_id: assetId,
            purpose: 'ai_input',
            content_type: 'image/png',
            size_bytes: bytes.length,
            width: 320,
            height: 200,
            upload_ms: rows[0]!.ready_at.getTime() - rows[0]!.created_at.getTime(),
          },
        },
      },
    ]);
    expect(JSON.stringify(events)).not.toMatch(new RegExp(`${OWNER}|http|verified/|assets/`));
  });

  it('concurrent completions of one upload write one event', async () => {
    const { id: assetId } = await upload(await png(256, 256));
    await Promise.all(Array.from({ length: 4 }, () => h.client.completeUpload({ assetId, ownerUserId: OWNER })));
    expect((await eventsOf(assetId)).map((event) => event.event_type)).toEqual(['creation_upload_completed']);
  });

  it('a refused completion writes none, and the completion that follows writes one', async () => {
    const bytes = await png();
    const { id: assetId, put } = await upload(bytes, { put: null });
    await expect(h.client.completeUpload({ assetId, ownerUserId: OWNER })).rejects.toMatchObject({ reason: 'UPLOAD_OBJECT_MISSING' });
    expect(await eventsOf(assetId)).toEqual([]);
    await put(bytes);
    await h.client.completeUpload({ assetId, ownerUserId: OWNER });
    expect((await eventsOf(assetId)).map((event) => event.event_type)).toEqual(['creation_upload_completed']);
  });

  it('an upload for another purpose than a creation writes none', async () => {
    const { id: assetId } = await upload(await png(), { purpose: mediaV1.AssetPurpose.POST_IMAGE });
    await h.client.completeUpload({ assetId, ownerUserId: OWNER });
    expect(await eventsOf(assetId)).toEqual([]);
  });
});
