import { randomBytes } from 'node:crypto';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commonV1, jobsCredentialsV1, jobsExecutionV1, jobsV1 } from '@atelier/contracts';
import type { PromiseClient } from '@atelier/grpc';
import { testClient, waitUntil, TEST_OPERATOR_ACTOR } from '@atelier/testing';
import { catalogChoice, refusal, startJobsHarness, uploadInputImage, type JobsHarness } from './test-support/jobs-harness.js';

// ProviderCredentialsService against a real database and catalog (docs/credentials.md).

const dir = mkdtempSync(path.join(tmpdir(), 'atelier-kek-'));
const kekFile = path.join(dir, 'kek.json');
const kekKeys = { k1: randomBytes(32).toString('base64'), k2: randomBytes(32).toString('base64') };
function writeKeks(current: 'k1' | 'k2', ids: ('k1' | 'k2')[]): void {
  writeFileSync(`${kekFile}.tmp`, JSON.stringify({ current, keys: Object.fromEntries(ids.map((id) => [id, kekKeys[id]])) }));
  renameSync(`${kekFile}.tmp`, kekFile);
}

let h: JobsHarness;
let asGateway: PromiseClient<jobsCredentialsV1.ProviderCredentialsServiceClient>;
let asWorker: PromiseClient<jobsCredentialsV1.ProviderCredentialsServiceClient>;
let asOps: PromiseClient<jobsCredentialsV1.ProviderCredentialsServiceClient>;
let userKeyModel: string;
let platformOnlyModel: string;
let styleId: string;

beforeAll(async () => {
  writeKeks('k1', ['k1']);
  h = await startJobsHarness({
    CREDENTIALS_KEK_FILE: kekFile,
    CREDENTIALS_MAX_PER_USER: 3,
    QUOTA_MAX_IN_FLIGHT: 1000,
    QUOTA_DAILY_LIMIT: 100000,
    QUOTA_MONTHLY_LIMIT: 100000,
  });
  const client = (identity: string) => testClient(jobsCredentialsV1.ProviderCredentialsServiceClient, h.address, identity);
  [asGateway, asWorker, asOps] = await Promise.all([client('gateway'), client('worker'), client('ops')]);
  const choice = await catalogChoice(h.catalog);
  platformOnlyModel = choice.stylizer.id;
  styleId = choice.style.id;
  const { model } = await h.catalog.upsertModel({
    actor: TEST_OPERATOR_ACTOR,
    code: 'credentials-model',
    mediaKind: commonV1.MediaKind.IMAGE,
    displayName: 'Credentials',
    providerCode: 'sim',
    providerModel: 'sim-stylize',
    modelVersion: '1',
    jobType: 'image.stylize',
    sortOrder: 990,
    defaultParameters: {},
    credentialModes: ['platform_key', 'user_key'],
  });
  userKeyModel = model!.id;
}, 120_000);

afterAll(async () => {
  for (const c of [asGateway, asWorker, asOps]) c?.close();
  await h?.stop();
  rmSync(dir, { recursive: true, force: true });
});

let seq = 0;
const newUser = () => `cred-user-${process.pid}-${++seq}`;
const apiKey = () => `sk-test-${randomBytes(16).toString('hex')}`;
async function createJob(userId: string, modelId: string, credentialId?: string) {
  return h.jobs.createJob(
    jobsV1.CreateJobRequest.fromPartial({
      userId,
      idempotencyKey: `cred-${++seq}`,
      jobType: 'image.stylize',
      modelId,
      styleId,
      inputAssetId: await uploadInputImage(h.media, userId),
      prompt: 'a cat',
      credentialId,
    }),
  );
}

describe('provider credentials - registration', () => {
  it('registers, lists (never the key) and deletes a key, within the per-user limit', async () => {
    const userId = newUser();
    const key = apiKey();
    const { credential } = await asGateway.createProviderCredential({ userId, providerCode: 'sim', label: ' Work ', apiKey: key });
    expect(credential).toMatchObject({ label: 'Work', keyHint: key.slice(-4), providerCode: 'sim' });
    for (let i = 0; i < 2; i += 1)
      await asGateway.createProviderCredential({ userId, providerCode: 'sim', label: `k${i}`, apiKey: apiKey() });
    expect(
      await refusal(asGateway.createProviderCredential({ userId, providerCode: 'sim', label: 'one too many', apiKey: apiKey() })),
    ).toMatchObject({
      code: 'FAILED_PRECONDITION',
      reason: 'CREDENTIAL_LIMIT_REACHED',
    });
    const listed = await asGateway.listProviderCredentials({ userId });
    expect(listed.maxCredentials).toBe(3);
    expect(listed.credentials).toHaveLength(3);
    expect(JSON.stringify(listed)).not.toContain(key);

    await asGateway.deleteProviderCredential({ userId, credentialId: credential!.id });
    expect((await asGateway.listProviderCredentials({ userId })).credentials).toHaveLength(2);
    expect(await refusal(asGateway.deleteProviderCredential({ userId, credentialId: credential!.id }))).toMatchObject({
      code: 'NOT_FOUND',
    });
    // Deleted: its sealed key is gone from the row.
    const { rows } = await h.db.query('SELECT ciphertext, wrapped_key, kek_id FROM jobs.provider_credentials WHERE id = $1', [
      credential!.id,
    ]);
    expect(rows[0]).toEqual({ ciphertext: null, wrapped_key: null, kek_id: null });
    // A slot is free again.
    await asGateway.createProviderCredential({ userId, providerCode: 'sim', label: 'again', apiKey: apiKey() });
  });

  it.each([
    [{ providerCode: 'acme' }, 'provider_code'],
    [{ label: '' }, 'label'],
    [{ label: 'x'.repeat(65) }, 'label'],
    [{ apiKey: 'short' }, 'api_key'],
    [{ apiKey: 'has a space inside' }, 'api_key'],
    [{ apiKey: 'k'.repeat(513) }, 'api_key'],
  ])('refuses %o naming %s, never echoing the key', async (change, field) => {
    const request = { userId: newUser(), providerCode: 'sim', label: 'ok', apiKey: apiKey(), ...change };
    const answer = await refusal(asGateway.createProviderCredential(request));
    expect(answer).toMatchObject({ code: 'INVALID_ARGUMENT', field });
    expect(answer.message).not.toContain(request.apiKey);
  });

  it('answers each method only to its callers', async () => {
    const userId = newUser();
    expect(await refusal(asWorker.createProviderCredential({ userId, providerCode: 'sim', label: 'x', apiKey: apiKey() }))).toMatchObject({
      code: 'PERMISSION_DENIED',
    });
    expect(await refusal(asGateway.getJobCredential({ jobId: '019a0000-0000-7000-8000-000000000001', workerId: 'w' }))).toMatchObject({
      code: 'PERMISSION_DENIED',
    });
    expect(await refusal(asGateway.rewrapCredentials({ actor: TEST_OPERATOR_ACTOR, batchSize: 1 }))).toMatchObject({
      code: 'PERMISSION_DENIED',
    });
    expect(await refusal(asOps.listProviderCredentials({ userId }))).toMatchObject({ code: 'PERMISSION_DENIED' });
  });
});

describe('provider credentials - jobs', () => {
  it("creates a job on the caller's own live key for the model's provider, and refuses every other", async () => {
    const owner = newUser();
    const { credential } = await asGateway.createProviderCredential({
      userId: owner,
      providerCode: 'sim',
      label: 'mine',
      apiKey: apiKey(),
    });
    const { job } = await createJob(owner, userKeyModel, credential!.id);
    expect(job).toMatchObject({ credentialMode: 'user_key', credentialId: credential!.id });
    const { rows } = await h.db.query('SELECT credential_mode, credential_id FROM jobs.generation_jobs WHERE id = $1', [job!.id]);
    expect(rows[0]).toEqual({ credential_mode: 'user_key', credential_id: credential!.id });

    expect(await refusal(createJob(newUser(), userKeyModel, credential!.id))).toMatchObject({
      code: 'NOT_FOUND',
      reason: 'PROVIDER_CREDENTIAL_NOT_FOUND',
    });
    expect(await refusal(createJob(owner, platformOnlyModel, credential!.id))).toMatchObject({
      code: 'FAILED_PRECONDITION',
      reason: 'CREDENTIAL_MODE_NOT_ALLOWED',
    });
    await asGateway.deleteProviderCredential({ userId: owner, credentialId: credential!.id });
    expect(await refusal(createJob(owner, userKeyModel, credential!.id))).toMatchObject({ reason: 'PROVIDER_CREDENTIAL_NOT_FOUND' });
    // Without a key: the platform's.
    expect((await createJob(owner, userKeyModel)).job).toMatchObject({ credentialMode: 'platform_key', credentialId: undefined });
  });

  it("hands the plain key only to the worker holding the job's live lease; rewrap moves rows to the new KEK and they still open", async () => {
    const owner = newUser();
    const key = apiKey();
    const { credential } = await asGateway.createProviderCredential({ userId: owner, providerCode: 'sim', label: 'lease', apiKey: key });
    const { job } = await createJob(owner, userKeyModel, credential!.id);
    expect(await refusal(asWorker.getJobCredential({ jobId: job!.id, workerId: 'w1' }))).toMatchObject({
      code: 'ABORTED',
      reason: 'LEASE_LOST',
    });

    const claim = await h.execution.claimJob({ jobId: job!.id, workerId: 'w1' });
    expect(claim.outcome).toBe(jobsExecutionV1.ClaimOutcome.CLAIMED);
    expect(await refusal(asWorker.getJobCredential({ jobId: job!.id, workerId: 'w2' }))).toMatchObject({
      code: 'ABORTED',
      reason: 'LEASE_LOST',
    });
    // Nor to cancel a prediction the job did not record.
    expect(await refusal(asWorker.getJobCredential({ jobId: job!.id, workerId: 'w2', cancelPredictionId: 'p-1' }))).toMatchObject({
      code: 'ABORTED',
    });
    expect(await asWorker.getJobCredential({ jobId: job!.id, workerId: 'w1' })).toMatchObject({
      credentialId: credential!.id,
      apiKey: key,
      label: 'lease',
      keyHint: key.slice(-4),
    });

    // KEK rotation: k2 becomes current, k1 stays listed until the rewrap is done.
    writeKeks('k2', ['k2', 'k1']);
    // Read again on the change (the directory watch; a poll beside it), without a restart.
    await waitUntil(() => h.app.context.credentials.keks!().current.id === 'k2', { timeoutMs: 5_000 });
    let total = 0;
    for (let remaining = 1; remaining > 0;) {
      const answer = await asOps.rewrapCredentials({ actor: TEST_OPERATOR_ACTOR, batchSize: 2 });
      expect(answer.currentKekId).toBe('k2');
      total += answer.rewrapped;
      remaining = Number(answer.remaining);
    }
    expect(total).toBeGreaterThan(0);
    expect((await asOps.rewrapCredentials({ actor: TEST_OPERATOR_ACTOR, batchSize: 10 })).rewrapped).toBe(0); // idempotent
    const { rows } = await h.db.query<{ kek_id: string }>(`SELECT DISTINCT kek_id FROM jobs.provider_credentials WHERE kek_id IS NOT NULL`);
    expect(rows).toEqual([{ kek_id: 'k2' }]);
    // Without k1 now, the rewrapped key still opens.
    writeKeks('k2', ['k2']);
    await waitUntil(() => !h.app.context.credentials.keks!().byId.has('k1'), { timeoutMs: 5_000 });
    expect((await asWorker.getJobCredential({ jobId: job!.id, workerId: 'w1' })).apiKey).toBe(key);

    // The vendor refused it: noted on the credential, only by the lease holder.
    expect(await refusal(asWorker.reportCredentialRefused({ jobId: job!.id, workerId: 'w2' }))).toMatchObject({ code: 'ABORTED' });
    await asWorker.reportCredentialRefused({ jobId: job!.id, workerId: 'w1' });
    const listed = await asGateway.listProviderCredentials({ userId: owner });
    expect(listed.credentials.find((c) => c.id === credential!.id)?.lastRefusedAt).toBeInstanceOf(Date);

    // Cancelled with its prediction recorded: any worker may have the key to cancel that prediction, and only that one.
    await h.execution.recordProviderRequest({ jobId: job!.id, workerId: 'w1', providerRequestId: 'pred-1' });
    await h.jobs.cancelJob({ jobId: job!.id, userId: owner });
    expect(await refusal(asWorker.getJobCredential({ jobId: job!.id, workerId: 'w1' }))).toMatchObject({ reason: 'JOB_CANCELLED' });
    expect(await refusal(asWorker.getJobCredential({ jobId: job!.id, workerId: 'w3', cancelPredictionId: 'pred-2' }))).toMatchObject({
      reason: 'PROVIDER_REQUEST_MISMATCH',
    });
    expect((await asWorker.getJobCredential({ jobId: job!.id, workerId: 'w3', cancelPredictionId: 'pred-1' })).apiKey).toBe(key);
  });
});
