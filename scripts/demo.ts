// `npm run demo`: a real user journey through the running platform's gateway (start it with
// `npm start` in another shell). Prints every step; saves the generated image to demo-output/.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { DEV_PET_IDS, DEV_USER_PET } from '../services/pet-directory-sim/src/domain/dev-pets.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const baseUrl = process.env.ATELIER_URL ?? 'http://127.0.0.1:8080';
const token = process.env.ATELIER_TOKEN ?? readTokenFile();
// A pet of dev-user's, as npm start's pet-directory-sim seeds it; with another ATELIER_TOKEN, one
// of that user's pets (empty: the job names no pet).
const petId = process.env.ATELIER_PET_ID ?? DEV_USER_PET;

function readTokenFile(): string {
  try {
    return (
      JSON.parse(readFileSync(path.resolve(root, process.env.PLATFORM_DATA_DIR || '.data', 'dev-tokens.json'), 'utf8')) as { user: string }
    ).user;
  } catch {
    console.error('demo: no token. Start the platform with `npm start` first (it writes .data/dev-tokens.json), or set ATELIER_TOKEN.');
    process.exit(1);
  }
}

const step = (n: number, text: string) => console.log(`\n${n}. ${text}`);
const show = (text: string) => console.log(`   ${text}`);

async function api<T>(
  method: string,
  route: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: T }> {
  const response = await fetch(`${baseUrl}${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const parsed = text ? (JSON.parse(text) as T) : (undefined as T);
  if (!response.ok) throw new Error(`${method} ${route} answered ${response.status}: ${text}`);
  return { status: response.status, body: parsed };
}

/** A little cartoon pet, drawn on the spot: the photo the user "uploads". */
async function petPhoto(): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="512" height="512">
    <rect width="512" height="512" fill="#bde0fe"/>
    <circle cx="256" cy="290" r="150" fill="#f4a261"/>
    <polygon points="140,190 170,60 240,160" fill="#e76f51"/><polygon points="372,190 342,60 272,160" fill="#e76f51"/>
    <circle cx="205" cy="270" r="22" fill="#264653"/><circle cx="307" cy="270" r="22" fill="#264653"/>
    <ellipse cx="256" cy="330" rx="26" ry="18" fill="#6d4c41"/>
    <path d="M216 370 Q256 400 296 370" stroke="#264653" stroke-width="8" fill="none"/>
  </svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

interface Job {
  id: string;
  status: string;
  progress: number;
  outputUrl: string | null;
  outputAssetId: string | null;
  error: { code: string; message: string } | null;
  attempts: { count: number };
  timings: { queuedMs: number; runningMs: number } | null;
}

async function followEvents(jobId: string): Promise<void> {
  const response = await fetch(`${baseUrl}/api/v1/creation/jobs/${jobId}/events`, { headers: { authorization: `Bearer ${token}` } });
  if (!response.ok || !response.body) throw new Error(`events answered ${response.status}`);
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of response.body) {
    buffered += decoder.decode(chunk, { stream: true });
    const events = buffered.split('\n\n');
    buffered = events.pop() ?? '';
    for (const event of events) {
      const data = event.split('\n').find((line) => line.startsWith('data: '));
      if (!data) continue;
      const job = JSON.parse(data.slice(6)) as Job;
      show(`event: ${job.status.padEnd(9)} progress ${String(job.progress).padStart(3)}%`);
    }
  }
}

step(1, `Read the catalog at ${baseUrl}`);
const catalog = (
  await api<{ models: { id: string; code: string; jobType: string }[]; styles: { id: string; code: string; title: string }[] }>(
    'GET',
    '/api/v1/creation/catalog?mediaKind=image',
  )
).body;
const model = catalog.models.find((m) => m.jobType === 'image.stylize')!;
const style = catalog.styles.find((s) => s.code === 'comic') ?? catalog.styles[0]!;
show(`${catalog.models.length} models, ${catalog.styles.length} styles; using model ${model.code} and style "${style.title}"`);

step(2, 'Upload a photo: create the upload, PUT the bytes to the presigned URL, complete it');
const photo = await petPhoto();
const upload = (
  await api<{ asset: { id: string }; upload: { url: string; headers: Record<string, string> } }>('POST', '/api/v1/media/uploads', {
    purpose: 'ai_input',
    contentType: 'image/png',
    sizeBytes: photo.length,
  })
).body;
const put = await fetch(upload.upload.url, { method: 'PUT', headers: upload.upload.headers, body: photo });
if (!put.ok) throw new Error(`the upload PUT answered ${put.status}`);
const completed = (
  await api<{ asset: { id: string; width: number; height: number; status: string } }>(
    'POST',
    `/api/v1/media/uploads/${upload.asset.id}/complete`,
  )
).body;
show(`asset ${completed.asset.id}: ${completed.asset.width}×${completed.asset.height}, ${completed.asset.status}`);

step(3, 'Submit a generation job of my pet with an Idempotency-Key, then submit it again');
const key = randomUUID();
const jobRequest = {
  jobType: 'image.stylize',
  modelId: model.id,
  styleId: style.id,
  inputAssetId: completed.asset.id,
  ...(petId ? { petId } : {}),
  prompt: 'my pet as a comic hero',
};
if (!process.env.ATELIER_PET_ID) {
  // The pet service decides which pets are mine: a neighbour's dog is not (nor is a pet that does not exist).
  const refused = await fetch(`${baseUrl}/api/v1/creation/jobs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    body: JSON.stringify({ ...jobRequest, petId: DEV_PET_IDS.rex }),
  });
  const { error } = (await refused.json()) as { error: { code: number; name: string } };
  show(`a neighbour's pet first: ${refused.status} ${error.name} (${error.code}); nothing written`);
  if (refused.status !== 404) throw new Error("the pet service let dev-user tag a neighbour's pet");
}
const first = await api<{ job: Job & { petId: string | null } }>('POST', '/api/v1/creation/jobs', jobRequest, { 'idempotency-key': key });
show(
  `${first.status} created job ${first.body.job.id} (${first.body.job.status})${first.body.job.petId ? ` of pet ${first.body.job.petId}` : ''}`,
);
const replay = await api<{ job: Job }>('POST', '/api/v1/creation/jobs', jobRequest, { 'idempotency-key': key });
show(`${replay.status} replayed: the same job ${replay.body.job.id} — no second job, no second charge`);

step(4, 'Follow its progress over Server-Sent Events');
await followEvents(first.body.job.id);

step(5, 'Fetch the result and save the image');
const done = (await api<{ job: Job }>('GET', `/api/v1/creation/jobs/${first.body.job.id}`)).body.job;
if (done.status !== 'succeeded' || !done.outputUrl)
  throw new Error(`the job ended ${done.status}: ${done.error?.code ?? ''} ${done.error?.message ?? ''}`);
const image = Buffer.from(await (await fetch(done.outputUrl)).arrayBuffer());
const outputDir = path.join(root, 'demo-output');
mkdirSync(outputDir, { recursive: true });
const inputFile = path.join(outputDir, `${done.id}-input.png`);
const outputFile = path.join(outputDir, `${done.id}-output.png`);
writeFileSync(inputFile, photo);
writeFileSync(outputFile, image);
show(
  `succeeded after ${done.attempts.count} attempt(s): queued ${done.timings?.queuedMs ?? '?'} ms, running ${done.timings?.runningMs ?? '?'} ms`,
);
show(`saved ${outputFile} (${image.length} bytes; the input is beside it)`);

step(6, 'One tap: a community draft from the job, then publish it');
const draft = (
  await api<{ post: { id: string; version: number; status: string; title: string } }>('POST', `/api/v1/creation/jobs/${done.id}/draft`)
).body.post;
show(`draft ${draft.id} "${draft.title}" (${draft.status}, version ${draft.version})`);
const published = (
  await api<{ post: { id: string; status: string; publishedAt: string } }>('PATCH', `/api/v1/posts/${draft.id}`, {
    expectedVersion: draft.version,
    status: 'published',
  })
).body.post;
show(`${published.status} at ${published.publishedAt}`);

step(7, 'See it at the top of the feed');
const feed = (await api<{ items: { id: string; title: string; category: string }[] }>('GET', '/api/v1/feed?limit=3')).body.items;
for (const post of feed) show(`${post.id === published.id ? '→' : ' '} ${post.title} [${post.category}]`);
if (feed[0]?.id !== published.id) throw new Error('the new post is not first in the feed');

step(8, 'See what is left of the quota, today and this month');
interface Quota {
  daily: { used: number; limit: number; remaining: number; resetsAt: string };
  monthly: { used: number; limit: number; remaining: number; resetsAt: string };
  inFlight: { count: number; limit: number };
  remainingNow: number;
}
const quota = (await api<Quota>('GET', '/api/v1/me/quota')).body;
show(`${quota.daily.remaining} of ${quota.daily.limit} left today (${quota.daily.used} used), resets at ${quota.daily.resetsAt}`);
show(
  `${quota.monthly.remaining} of ${quota.monthly.limit} left this month (${quota.monthly.used} used), resets at ${quota.monthly.resetsAt}`,
);
show(`${quota.inFlight.count} of ${quota.inFlight.limit} running or queued; ${quota.remainingNow} more can be submitted now`);
if (quota.daily.used < 1 || quota.monthly.used < 1) throw new Error('the job of step 3 is not counted by the quota');

step(9, 'Open the gallery: the photo uploaded and the image generated, newest first');
interface GalleryItem {
  asset: { id: string; purpose: string; status: string; width: number | null; height: number | null; sizeBytes: number };
  url: string | null;
}
const gallery = (await api<{ items: GalleryItem[]; nextCursor: string | null }>('GET', '/api/v1/media/assets?limit=6')).body;
for (const { asset, url } of gallery.items) {
  const mark = asset.id === done.outputAssetId || asset.id === completed.asset.id ? '→' : ' ';
  const size = asset.width ? `${asset.width}×${asset.height}` : 'no size yet';
  show(`${mark} ${asset.purpose.padEnd(10)} ${asset.status.padEnd(9)} ${size.padEnd(11)} ${asset.id}${url ? '  (download URL)' : ''}`);
}
if (gallery.nextCursor) show('  … older ones on the next page (cursor)');
const mine = new Set(gallery.items.map((item) => item.asset.id));
if (!mine.has(completed.asset.id) || !done.outputAssetId || !mine.has(done.outputAssetId))
  throw new Error('the gallery does not show the upload and the output of this run');
const refused = await fetch(`${baseUrl}/api/v1/media/assets/${done.outputAssetId}`, {
  method: 'DELETE',
  headers: { authorization: `Bearer ${token}` },
});
const refusal = (await refused.json()) as { error: { code: number; name: string; message: string } };
show(`deleting the generated image now: ${refused.status} ${refusal.error.name} (${refusal.error.code}): ${refusal.error.message}`);
if (refused.status !== 409) throw new Error('the published post did not keep its image');
console.log('\nDemo complete.');
