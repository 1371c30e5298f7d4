import { createHmac } from 'node:crypto';
import { SignJWT, exportSPKI, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { productEventsV1 } from '@atelier/contracts';
import { connectNats, jetstreamManager, jobsTopology, type NatsConnection } from '@atelier/nats';
import { MobileApi, startTestPlatform, type ApiJob, type TestPlatform } from '@atelier/testing';

// The product events of one creation's journey, end to end: every service a real process on real
// Postgres, NATS and an S3 store, driven through the gateway as the app drives it — upload a
// photo, create a job (and replay the request), wait for it, tap "make a post" twice, publish the
// draft — while this test reads the product events stream as the product team's bridge would.
// Each fact is one event, in order, with the props the bridge forwards and nothing private.

let platform: TestPlatform;
let nats: NatsConnection;
let api: MobileApi;
/** An identity provider's subject may be an e-mail address: no event may carry it. */
const SUBJECT = `maya-${process.pid}@example.com`;
const PROMPT = 'PROMPT-NEVER-IN-AN-EVENT my cat as a watercolour';

beforeAll(async () => {
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  platform = await startTestPlatform({
    workers: 1,
    providerEnv: { PROVIDER_SIM_LATENCY_MS: '300' },
    gateway: { JWT_PUBLIC_KEY: await exportSPKI(publicKey), JWT_ISSUER: 'e2e', JWT_AUDIENCE: 'atelier-app' },
  });
  const token = await new SignJWT({ roles: [] })
    .setProtectedHeader({ alg: 'EdDSA' })
    .setSubject(SUBJECT)
    .setIssuer('e2e')
    .setAudience('atelier-app')
    .setIssuedAt()
    .setExpirationTime('10m')
    .sign(privateKey);
  api = new MobileApi(platform.gatewayUrl!, token);
  nats = await connectNats({ servers: platform.natsUrl, name: 'product-events-e2e' });
}, 180_000);

afterAll(async () => {
  await nats?.close();
  await platform?.stop();
});

interface Published {
  subject: string;
  msgId: string | undefined;
  event: productEventsV1.ProductEvent & { props: Record<string, unknown> };
  raw: string;
}

/** Every message of the product events stream so far, in stream order. */
async function productStream(): Promise<Published[]> {
  const topology = jobsTopology(platform.natsPrefix);
  const jsm = await jetstreamManager(nats);
  const { state } = await jsm.streams.info(topology.productEventsStream);
  const messages: Published[] = [];
  for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq += 1) {
    const message = await jsm.streams.getMessage(topology.productEventsStream, { seq }).catch(() => null);
    if (!message) continue;
    const event = productEventsV1.ProductEvent.fromJSON(message.json()) as Published['event'];
    messages.push({ subject: message.subject, msgId: message.header?.get('Nats-Msg-Id'), event, raw: message.string() });
  }
  return messages;
}

/** Reads the stream until `done` holds of it, then once more after a pause (a late duplicate would show). */
async function streamUntil(done: (messages: Published[]) => boolean, timeoutMs = 30_000): Promise<Published[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const messages = await productStream();
    if (done(messages)) break;
    if (Date.now() > deadline)
      throw new Error(`the product events did not arrive: ${JSON.stringify(messages.map((m) => m.event.eventName))}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  return productStream();
}

const userRef = () => createHmac('sha256', platform.productEventsUserKey).update(SUBJECT).digest('hex');
const ofJob = (jobId: string) => (m: Published) => m.event.props.job_id === jobId;

describe('product events - one creation’s journey', () => {
  let journey: Published[];
  let inputAssetId: string;
  let job: ApiJob;
  let postId: string;
  const urls: string[] = [];

  it('follows upload → submit (replayed) → succeed → draft (tapped twice) → publish through the gateway', async () => {
    inputAssetId = await api.uploadPhoto();
    const asset = await api.call<{ url: string }>('GET', `/api/v1/media/assets/${inputAssetId}`);
    urls.push(asset.body.url);
    const body = await api.stylizeBody(inputAssetId, PROMPT);
    const created = await api.createJob(body, 'journey-1');
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const replayed = await api.createJob(body, 'journey-1');
    expect(replayed.status).toBe(200);
    expect(replayed.body.job.id).toBe(created.body.job.id);
    job = await api.waitTerminal(created.body.job.id);
    expect(job.status).toBe('succeeded');
    if (job.outputUrl) urls.push(job.outputUrl);

    const tap = () => api.call<{ post: { id: string; version: number } }>('POST', `/api/v1/creation/jobs/${job.id}/draft`);
    const first = await tap();
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect((await tap()).status).toBe(200);
    postId = first.body.post.id;
    const published = await api.call('PATCH', `/api/v1/posts/${postId}`, { body: { expectedVersion: 1, status: 'published' } });
    expect(published.status, JSON.stringify(published.body)).toBe(200);

    journey = await streamUntil((messages) => messages.some((m) => m.event.eventName === 'creation_post_published'));
  });

  it('sees each fact exactly once, in order, on its own subject, with Nats-Msg-Id = event id', () => {
    const mine = journey.filter((m) => m.event.userRef === userRef());
    expect(mine.map((m) => m.event.eventName)).toEqual([
      'creation_upload_completed',
      'creation_job_submitted',
      'creation_job_succeeded',
      'creation_draft_created',
      'creation_post_published',
    ]);
    expect(new Set(mine.map((m) => m.event.eventId)).size).toBe(mine.length);
    for (const { subject, msgId, event } of mine) {
      expect(subject).toBe(jobsTopology(platform.natsPrefix).productEventSubject(event.eventName));
      expect(msgId).toBe(event.eventId);
    }
    // The job's own events, as the product team follows one creation.
    expect(mine.filter(ofJob(job.id)).map((m) => m.event.eventName)).toEqual([
      'creation_job_submitted',
      'creation_job_succeeded',
      'creation_draft_created',
      'creation_post_published',
    ]);
    const times = mine.map((m) => m.event.occurredAt!.getTime());
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it('carries the ids and facts the bridge forwards', () => {
    const byName = Object.fromEntries(journey.map((m) => [m.event.eventName, m.event]));
    expect(byName.creation_upload_completed).toMatchObject({
      eventId: `creation_upload_completed:${inputAssetId}`,
      props: { asset_id: inputAssetId, purpose: 'ai_input', content_type: 'image/png', width: 256, height: 256 },
    });
    expect(byName.creation_job_submitted).toMatchObject({
      eventId: `creation_job_submitted:${job.id}`,
      props: {
        job_id: job.id,
        job_type: 'image.stylize',
        input_asset_id: inputAssetId,
        style_code: expect.any(String),
        model_id: expect.any(String),
      },
    });
    expect(byName.creation_job_succeeded).toMatchObject({
      props: {
        job_id: job.id,
        output_asset_id: job.outputAssetId,
        attempts: 1,
        duration_ms: expect.any(Number),
        run_ms: expect.any(Number),
      },
    });
    expect(byName.creation_draft_created).toMatchObject({
      eventId: `creation_draft_created:${postId}`,
      props: { post_id: postId, job_id: job.id, asset_id: job.outputAssetId },
    });
    expect(byName.creation_post_published).toMatchObject({
      eventId: `creation_post_published:${postId}`,
      props: { post_id: postId, job_id: job.id, category: 'ai_creation', from_draft: true },
    });
  });

  it('carries no prompt, no image URL, no raw subject', () => {
    const everything = journey.map((m) => m.raw).join('\n');
    expect(everything).not.toContain('PROMPT-NEVER-IN-AN-EVENT');
    expect(everything).not.toContain(SUBJECT);
    expect(everything).not.toContain('maya-');
    expect(everything).not.toMatch(/https?:\/\//);
    for (const url of urls) expect(everything).not.toContain(new URL(url).pathname);
  });
});

describe('product events - a job that fails', () => {
  it('writes creation_job_failed once, with its error code', async () => {
    const inputAssetId = await api.uploadPhoto();
    const created = await api.createJob(await api.stylizeBody(inputAssetId, 'a refused one #sim:content_safety'), 'failing-1');
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const failed = await api.waitTerminal(created.body.job.id);
    expect(failed.status).toBe('failed');
    const messages = await streamUntil((all) => all.some((m) => m.event.eventName === 'creation_job_failed'));
    const events = messages.filter(ofJob(failed.id)).map((m) => m.event);
    expect(events.map((event) => event.eventName)).toEqual(['creation_job_submitted', 'creation_job_failed']);
    expect(events[1]).toMatchObject({
      eventId: `creation_job_failed:${failed.id}`,
      userRef: userRef(),
      props: { job_id: failed.id, error_code: failed.error!.code, attempts: failed.attempts.count },
    });
    expect(JSON.stringify(events)).not.toContain('#sim');
  });
});
