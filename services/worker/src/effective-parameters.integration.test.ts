import { TEST_OPERATOR_ACTOR } from '@atelier/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commonV1, jobsV1 } from '@atelier/contracts';
import { providerInput, startPlatform, uploadInput, waitForJob, type Platform } from './test-support/platform-harness.js';

let p: Platform;
let modelId: string;
let style: { id: string; code: string; promptPreset: string };

beforeAll(async () => {
  p = await startPlatform();
  // A model of its own, so the seeds' defaults do not decide the outcome.
  const { model } = await p.catalog.upsertModel({
    actor: TEST_OPERATOR_ACTOR,
    code: 'effective-e2e',
    mediaKind: commonV1.MediaKind.IMAGE,
    displayName: 'Effective parameters E2E',
    providerCode: 'sim',
    providerModel: 'sim-stylize',
    modelVersion: '1.0',
    jobType: 'image.stylize',
    sortOrder: 900,
    defaultParameters: { strength: 0.6, seed: 7 },
    credentialModes: [],
  });
  modelId = model!.id;
  const { styles } = await p.catalog.getCatalog({ mediaKind: commonV1.MediaKind.IMAGE });
  style = styles[0]!;
  await p.startWorker();
}, 120_000);

afterAll(async () => {
  await p?.stop();
});

let seq = 0;

async function runStylize(
  prompt: string,
  parameters?: Record<string, unknown>,
): Promise<{ job: jobsV1.Job; sent: Record<string, unknown> }> {
  const userId = `effective-user-${process.pid}-${++seq}`;
  const { assetId } = await uploadInput(p.media, userId);
  const { job } = await p.jobs.createJob(
    jobsV1.CreateJobRequest.fromPartial({
      userId,
      idempotencyKey: `effective-${seq}`,
      jobType: 'image.stylize',
      modelId,
      styleId: style.id,
      inputAssetId: assetId,
      prompt,
      parameters,
    }),
  );
  const done = await waitForJob(p, job!.id, userId);
  expect(done.status).toBe(jobsV1.JobStatus.SUCCEEDED);
  const { rows } = await p.db.query<{ provider_request_id: string }>('SELECT provider_request_id FROM jobs.generation_jobs WHERE id = $1', [
    done.id,
  ]);
  return { job: done, sent: await providerInput(p, rows[0]!.provider_request_id) };
}

describe('effective parameters - end to end', () => {
  it("sends the model's default_parameters and the style's preset to the vendor, and records them on the job", async () => {
    const { job, sent } = await runStylize('my cat');
    expect(sent).toMatchObject({ strength: 0.6, seed: 7, prompt: `my cat, ${style.promptPreset}`, style: style.code });
    expect(job.parameters).toEqual({});
    expect(job.prompt).toBe('my cat');
    expect(job.snapshot).toMatchObject({
      effectiveParameters: { strength: 0.6, seed: 7 },
      effectivePrompt: `my cat, ${style.promptPreset}`,
    });
  });

  it("lets the user's own value win over the default, keeping the defaults it does not name", async () => {
    const { job, sent } = await runStylize('', { strength: 0.9 });
    expect(sent).toMatchObject({ strength: 0.9, seed: 7, prompt: style.promptPreset });
    expect(job.parameters).toEqual({ strength: 0.9 });
    expect(job.snapshot?.effectiveParameters).toEqual({ strength: 0.9, seed: 7 });
  });
});
