import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commonV1, jobsCredentialsV1, jobsV1 } from '@atelier/contracts';
import type { PromiseClient } from '@atelier/grpc';
import { kekFileText, testClient, TEST_OPERATOR_ACTOR } from '@atelier/testing';
import { startPlatform, uploadInput, waitForJob, type Platform } from './test-support/platform-harness.js';

// Credential modes against the real platform (docs/credentials.md): the platform's key from a
// mounted file, rotated under a running worker; a user's own key, stored sealed and run with.

const dir = mkdtempSync(path.join(tmpdir(), 'atelier-credentials-'));
const files = { platformKey: path.join(dir, 'platform-key'), simKeys: path.join(dir, 'sim-keys'), kek: path.join(dir, 'kek.json') };
const keys = {
  platformOld: `platform-old-${randomBytes(12).toString('hex')}`,
  platformNew: `platform-new-${randomBytes(12).toString('hex')}`,
  userGood: `user-good-${randomBytes(16).toString('hex')}`,
  userWrong: `user-wrong-${randomBytes(16).toString('hex')}`,
};
const fingerprint = (key: string) => createHash('sha256').update(key).digest('hex').slice(0, 12);

/** Replaces a file the way a Secret mount changes: the new content appears at once, whole. */
function replaceFile(file: string, text: string): void {
  writeFileSync(`${file}.tmp`, text);
  renameSync(`${file}.tmp`, file);
}

let p: Platform;
let credentials: PromiseClient<jobsCredentialsV1.ProviderCredentialsServiceClient>;
let credentialsAsWorker: PromiseClient<jobsCredentialsV1.ProviderCredentialsServiceClient>;
let modelId: string;
let styleId: string;

beforeAll(async () => {
  replaceFile(files.platformKey, `${keys.platformOld}\n`);
  // The vendor accepts both platform keys during the rotation, and the good user key; never the wrong one.
  replaceFile(files.simKeys, [keys.platformOld, keys.platformNew, keys.userGood].join('\n'));
  replaceFile(files.kek, kekFileText(['kek-a']));
  p = await startPlatform({
    providerEnv: { PROVIDER_SIM_API_KEYS_FILE: files.simKeys, PROVIDER_SIM_LATENCY_MS: '200' },
    workerEnv: { PROVIDER_API_KEY_FILE: files.platformKey, PROVIDER_API_KEY_POLL_MS: '200' },
    jobsEnv: { CREDENTIALS_KEK_FILE: files.kek },
  });
  credentials = await testClient(jobsCredentialsV1.ProviderCredentialsServiceClient, p.processes.jobs.address, 'gateway');
  credentialsAsWorker = await testClient(jobsCredentialsV1.ProviderCredentialsServiceClient, p.processes.jobs.address, 'worker');
  const { model } = await p.catalog.upsertModel({
    actor: TEST_OPERATOR_ACTOR,
    code: 'credentials-e2e',
    mediaKind: commonV1.MediaKind.IMAGE,
    displayName: 'Credentials E2E',
    providerCode: 'sim',
    providerModel: 'sim-stylize',
    modelVersion: '1.0',
    jobType: 'image.stylize',
    sortOrder: 950,
    defaultParameters: {},
    credentialModes: ['platform_key', 'user_key'],
  });
  modelId = model!.id;
  styleId = (await p.catalog.getCatalog({ mediaKind: commonV1.MediaKind.IMAGE })).styles[0]!.id;
  await p.startWorker();
}, 180_000);

afterAll(async () => {
  credentials?.close();
  credentialsAsWorker?.close();
  await p?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function keyRequests(): Promise<Record<string, number>> {
  return ((await (await fetch(`${p.providerUrl}/v1/stats/keys`)).json()) as { requests: Record<string, number> }).requests;
}

let seq = 0;
async function runJob(userId: string, credentialId?: string): Promise<jobsV1.Job> {
  const { assetId } = await uploadInput(p.media, userId);
  const { job } = await p.jobs.createJob(
    jobsV1.CreateJobRequest.fromPartial({
      userId,
      idempotencyKey: `credentials-${++seq}`,
      jobType: 'image.stylize',
      modelId,
      styleId,
      inputAssetId: assetId,
      prompt: 'a cat',
      credentialId,
    }),
  );
  return waitForJob(p, job!.id, userId);
}

describe('credential modes - user keys', () => {
  it('stores a user key sealed (no byte of it in the row, in any encoding) and runs the job with it', async () => {
    const userId = `cred-user-${process.pid}`;
    const { credential } = await credentials.createProviderCredential({
      userId,
      providerCode: 'sim',
      label: 'My key',
      apiKey: keys.userGood,
    });
    expect(credential).toMatchObject({ label: 'My key', keyHint: keys.userGood.slice(-4), providerCode: 'sim' });
    expect(JSON.stringify(credential)).not.toContain(keys.userGood);

    const { rows } = await p.db.query<Record<string, unknown>>('SELECT * FROM jobs.provider_credentials WHERE id = $1', [credential!.id]);
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    const secret = Buffer.from(keys.userGood);
    const forms = [
      keys.userGood,
      secret.toString('base64'),
      secret.toString('base64url'),
      secret.toString('hex'),
      keys.userGood.slice(0, 12), // a part of it is not stored either
    ];
    for (const [column, value] of Object.entries(row)) {
      const bytes = Buffer.isBuffer(value) ? value : Buffer.from(String(value));
      for (const form of forms) {
        expect(bytes.includes(Buffer.from(form)), `column ${column} holds the key (${form.length} chars)`).toBe(false);
        if (Buffer.isBuffer(value)) {
          for (const encoded of [value.toString('base64'), value.toString('hex'), value.toString('utf8')])
            expect(encoded.includes(form), `column ${column}`).toBe(false);
        }
      }
    }
    expect(row.ciphertext).toBeInstanceOf(Buffer);
    expect(row.kek_id).toBe('kek-a');

    const before = (await keyRequests())[fingerprint(keys.userGood)] ?? 0;
    const job = await runJob(userId, credential!.id);
    expect(job.status, job.errorMessage).toBe(jobsV1.JobStatus.SUCCEEDED);
    expect(job).toMatchObject({ credentialMode: 'user_key', credentialId: credential!.id });
    expect((await keyRequests())[fingerprint(keys.userGood)] ?? 0).toBeGreaterThan(before);

    // The plain key is the lease holder's alone: an ended job's is refused to any worker.
    await expect(credentialsAsWorker.getJobCredential({ jobId: job.id, workerId: 'intruder/1/abc' })).rejects.toMatchObject({
      reason: 'JOB_SUCCEEDED',
    });
    // And never to the gateway, whatever the job.
    await expect(credentials.getJobCredential({ jobId: job.id, workerId: 'gateway/1/abc' })).rejects.toMatchObject({
      code: 'PERMISSION_DENIED',
    });
  }, 60_000);

  it('fails a job whose user key the vendor refuses once, with CREDENTIAL_INVALID naming the key, and records the refusal', async () => {
    const userId = `cred-wrong-${process.pid}`;
    const { credential } = await credentials.createProviderCredential({
      userId,
      providerCode: 'sim',
      label: 'Old key',
      apiKey: keys.userWrong,
    });
    const job = await runJob(userId, credential!.id);
    expect(job.status).toBe(jobsV1.JobStatus.FAILED);
    expect(job.errorCode).toBe('CREDENTIAL_INVALID');
    expect(job.attemptCount).toBe(1);
    expect(job.errorMessage).toContain('"Old key"');
    expect(job.errorMessage).toContain(keys.userWrong.slice(-4));
    expect(job.errorMessage).not.toContain(keys.userWrong);
    const { rows } = await p.db.query<{ last_refused_at: Date | null }>(
      'SELECT last_refused_at FROM jobs.provider_credentials WHERE id = $1',
      [credential!.id],
    );
    expect(rows[0]!.last_refused_at).toBeInstanceOf(Date);
    const { credentials: listed } = await credentials.listProviderCredentials({ userId });
    expect(listed[0]!.lastRefusedAt).toBeInstanceOf(Date);
  }, 60_000);
});

describe('credential modes - the platform key', () => {
  it('uses a rotated platform key file without a restart; the vendor then drops the old key and jobs still run', async () => {
    const userId = `cred-platform-${process.pid}`;
    const first = await runJob(userId);
    expect(first.status, first.errorMessage).toBe(jobsV1.JobStatus.SUCCEEDED);
    expect(first.credentialMode).toBe('platform_key');
    const oldCount = (await keyRequests())[fingerprint(keys.platformOld)] ?? 0;
    expect(oldCount).toBeGreaterThan(0);

    // The Secret is updated: the worker reads it within its poll (or the change event)…
    replaceFile(files.platformKey, `${keys.platformNew}\n`);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    // …and the vendor stops accepting the old key.
    replaceFile(files.simKeys, [keys.platformNew, keys.userGood].join('\n'));
    await new Promise((resolve) => setTimeout(resolve, 1_500));

    const second = await runJob(userId);
    expect(second.status, second.errorMessage).toBe(jobsV1.JobStatus.SUCCEEDED);
    const after = await keyRequests();
    expect(after[fingerprint(keys.platformNew)] ?? 0).toBeGreaterThan(0);
    expect(after[fingerprint(keys.platformOld)] ?? 0).toBe(oldCount);
  }, 60_000);
});
