import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MobileApi, startTestPlatform, type ServiceProcess, type TestPlatform } from '@atelier/testing';
import { testTokenKey } from './test-support/gateway-harness.js';

// What a user wrote never reaches a log (SPEC "Data"; libs/logging redacts known fields as well): every service of
// ours logs at its most verbose level while a user runs the whole journey with marker strings —
// a prompt and a negative prompt, their own vendor key, a post's title and text, their subject —
// and with images of unique bytes; then no line any service printed, at any level, carries a
// marker, nor the images' bytes as base64, hex or a JSON byte list (what a logged Buffer becomes).
// The services print little per request today; this keeps it so when a log line is added.
// provider-sim and pet-directory-sim stand in for third parties: their logs are not ours.
const run = randomBytes(6).toString('hex');
const marker = (what: string) => `zq${what}${run}qz`;
const MARKERS = {
  subject: marker('subject'),
  prompt: marker('prompt'),
  negativePrompt: marker('negative'),
  vendorKey: marker('vendorkey'),
  postTitle: marker('title'),
  postText: marker('text'),
  credentialLabel: marker('label'),
};

let platform: TestPlatform;
let api: MobileApi;
const printed = new Map<ServiceProcess, string[]>();
const ours = () => [platform.catalog, platform.media, platform.jobs, platform.community!, platform.gateway!, ...platform.workers];

/** Every line the process prints from now on, kept whole (ServiceProcess.output keeps only the last 20 000 characters). */
function collect(service: ServiceProcess): void {
  const lines: string[] = [];
  printed.set(service, lines);
  let partial = '';
  const keep = (chunk: Buffer) => {
    const text = partial + chunk.toString();
    const parts = text.split('\n');
    partial = parts.pop()!;
    lines.push(...parts);
  };
  service.child.stdout?.on('data', keep);
  service.child.stderr?.on('data', keep);
}

/** A PNG whose pixels are random: its bytes occur nowhere else. */
function noisePng(size = 96): Promise<Buffer> {
  return sharp(randomBytes(size * size * 3), { raw: { width: size, height: size, channels: 3 } })
    .png()
    .toBuffer();
}

/** The ways a run of an image's bytes could be printed: base64, hex, and a JSON Buffer's number list. */
function byteForms(name: string, bytes: Buffer): Record<string, string> {
  const slice = bytes.subarray(Math.floor(bytes.length / 2), Math.floor(bytes.length / 2) + 24);
  return {
    [`${name} (base64)`]: slice.toString('base64').slice(4, 28),
    [`${name} (hex)`]: slice.toString('hex'),
    [`${name} (byte list)`]: [...slice.subarray(0, 12)].join(','),
  };
}

beforeAll(async () => {
  const key = await testTokenKey();
  platform = await startTestPlatform({
    workers: 1,
    community: true,
    provider: true,
    gateway: key.gatewayEnv,
    env: { LOG_LEVEL: 'trace' },
  });
  for (const service of ours()) collect(service);
  api = new MobileApi(platform.gatewayUrl!, await key.sign(MARKERS.subject));
}, 180_000);

afterAll(async () => {
  await platform?.stop();
});

describe('logs carry nothing a user wrote', () => {
  it('no service line, at trace level, holds a marker of the journey or the bytes of its images', async () => {
    const input = await noisePng();
    const inputAssetId = await api.uploadPhoto({ bytes: input });

    const credential = await api.call<{ credential: { id: string } }>('POST', '/api/v1/me/provider-credentials', {
      body: { providerCode: 'sim', label: MARKERS.credentialLabel, apiKey: MARKERS.vendorKey },
    });
    expect(credential.status).toBe(201);
    expect((await api.call('GET', '/api/v1/me/provider-credentials')).status).toBe(200);
    expect((await api.call('DELETE', `/api/v1/me/provider-credentials/${credential.body.credential.id}`)).status).toBe(200);

    const body = { ...(await api.stylizeBody(inputAssetId, MARKERS.prompt)), negativePrompt: MARKERS.negativePrompt };
    const created = await api.createJob(body, `log-privacy-${run}`);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    // The same key again: a replay, through the idempotency path.
    expect((await api.createJob(body, `log-privacy-${run}`)).status).toBe(200);
    const job = await api.waitTerminal(created.body.job.id, 60_000);
    expect(job.status).toBe('succeeded');
    const output = Buffer.from(await (await fetch(job.outputUrl!)).arrayBuffer());

    const draft = await api.call<{ post: { id: string; version: number } }>('POST', `/api/v1/creation/jobs/${job.id}/draft`, {
      body: { title: MARKERS.postTitle },
    });
    expect(draft.status, JSON.stringify(draft.body)).toBe(201);
    const edited = await api.call('PATCH', `/api/v1/posts/${draft.body.post.id}`, {
      body: { expectedVersion: draft.body.post.version, content: MARKERS.postText },
    });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    // A refusal logs too: a create whose prompt is too long, with the marker in it.
    expect((await api.createJob({ ...body, prompt: `${MARKERS.prompt} ${'x'.repeat(10_000)}` }, `log-privacy-long-${run}`)).status).toBe(
      400,
    );

    const forbidden: Record<string, string> = {
      ...MARKERS,
      ...byteForms('the input image', input),
      ...byteForms('the output image', output),
    };
    // The services log as they go: give the last lines (the job's end, the post's event) a moment.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const leaks: string[] = [];
    for (const service of ours()) {
      // What the process printed since the test began, and the tail it printed before (start-up).
      const lines = [...service.output().split('\n'), ...printed.get(service)!];
      expect(
        lines.some((line) => line.includes(`"service":"${service.name}"`)),
        `${service.name} printed nothing we could read`,
      ).toBe(true);
      for (const line of lines)
        for (const [what, text] of Object.entries(forbidden))
          if (line.includes(text)) leaks.push(`${service.name} logged ${what}: ${line.slice(0, 300)}`);
    }
    expect(leaks).toEqual([]);
  });
});
