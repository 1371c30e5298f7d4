import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobsExecutionV1, jobsV1 } from '@atelier/contracts';
import { findJobType } from '@atelier/job-types';
import type { ServiceProcess } from '@atelier/testing';
import {
  chargedFor,
  providerInput,
  providerStats,
  startPlatform,
  stylizeRequest,
  uploadInput,
  waitForJob,
  type Platform,
} from './test-support/platform-harness.js';

let p: Platform;
let worker: ServiceProcess;

beforeAll(async () => {
  p = await startPlatform();
  worker = await p.startWorker();
}, 120_000);

afterAll(async () => {
  await p?.stop();
});

let seq = 0;
const newUser = () => `output-validation-${process.pid}-${++seq}`;
const JOB_SEED = 1234;
const stylizeRules = findJobType('image.stylize')!.output!;

async function createStylize(userId: string, prompt: string): Promise<jobsV1.Job> {
  const input = await uploadInput(p.media, userId);
  const request = await stylizeRequest(p, userId, input.assetId, prompt, `k-${++seq}`);
  const { job } = await p.jobs.createJob({ ...request, parameters: { seed: JOB_SEED } });
  return job!;
}

/** The job's predictions at the vendor, by attempt, from the usage ledger (written a moment after each call). */
async function predictionsOf(jobId: string, count: number): Promise<string[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { rows } = await p.db.query<{ vendor_id: string }>(
      `SELECT vendor_id FROM jobs.provider_calls WHERE job_id = $1 AND call_kind = 'submit' AND outcome = 'ok' ORDER BY attempt`,
      [jobId],
    );
    if (rows.length >= count || Date.now() > deadline) return rows.map((row) => row.vendor_id);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function readOutput(assetId: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const message of p.mediaAsWorker.readAsset({ assetId })) {
    if (message.part?.$case === 'chunk') chunks.push(Buffer.from(message.part.chunk));
  }
  return Buffer.concat(chunks);
}

/** atelier_worker_output_rejected_total of one reason, by model label. */
async function rejectedByModel(reason: string): Promise<Record<string, number>> {
  const text = await (await fetch(`http://${worker.address}/metrics`)).text();
  const counts: Record<string, number> = {};
  for (const line of text.split('\n')) {
    if (!line.startsWith('atelier_worker_output_rejected_total{')) continue;
    const labels = Object.fromEntries([...line.matchAll(/(\w+)="([^"]*)"/g)].map((match) => [match[1], match[2]]));
    if (labels['reason'] === reason) counts[labels['model']!] = Number(line.split(' ').at(-1));
  }
  return counts;
}

describe('output validation - against the real platform', () => {
  it.each([
    ['invalid_output', 'VALIDATION_OUTPUT_UNDECODABLE', 'undecodable'],
    ['blank_output', 'VALIDATION_OUTPUT_BLANK', 'blank'],
    ['wrong_size_output', 'VALIDATION_OUTPUT_SIZE', 'size'],
  ])(
    'retries a #sim-once:%s answer as %s with a new seed, then succeeds with the valid output',
    async (kind, code, reason) => {
      const user = newUser();
      const job = await createStylize(user, `a parrot #sim-once:${kind}`);
      const done = await waitForJob(p, job.id, user, { timeoutMs: 60_000 });
      expect(done).toMatchObject({ status: jobsV1.JobStatus.SUCCEEDED, attemptCount: 2 });

      const details = await p.admin.getJobDetails({ jobId: job.id });
      const failed = details.events.filter((event) => event.errorCode);
      expect(failed.map((event) => [event.attempt, event.errorCode, event.errorClass])).toEqual([
        [1, code, jobsExecutionV1.ErrorClass.VALIDATION],
      ]);
      expect(details.job!.abandonedProviderRequests).toBe(1);

      // Two predictions, each charged once under its own key: the retry was not the bad one again.
      const predictions = await predictionsOf(job.id, 2);
      expect(predictions).toHaveLength(2);
      expect(chargedFor(await providerStats(p), job.id)).toBe(2);
      expect((await providerInput(p, predictions[0]!))['seed']).toBe(JOB_SEED);
      expect((await providerInput(p, predictions[1]!))['seed']).toBe(JOB_SEED + 7_919);

      const bytes = await readOutput(done.outputAssetId!);
      expect(bytes.length).toBeGreaterThan(0);
      expect(done.outputSha256).toBe(createHash('sha256').update(bytes).digest('hex'));

      const model = details.job!.job!.snapshot!.providerModel;
      expect(model).toBeTruthy();
      expect((await rejectedByModel(reason))[model]).toBeGreaterThanOrEqual(1);
    },
    90_000,
  );

  it("fails a job whose every answer is refused after the type's validationRetries, attempts left or not", async () => {
    const user = newUser();
    const before = await rejectedByModel('size');
    const job = await createStylize(user, 'a parrot #sim:wrong_size_output');
    const done = await waitForJob(p, job.id, user, { timeoutMs: 60_000 });
    const attempts = stylizeRules.validationRetries + 1;
    expect(done).toMatchObject({ status: jobsV1.JobStatus.FAILED, errorCode: 'VALIDATION_OUTPUT_SIZE', attemptCount: attempts });
    expect(done.attemptCount).toBeLessThan(done.maxAttempts);
    expect(done.outputSha256).toBeUndefined();
    expect(chargedFor(await providerStats(p), job.id)).toBe(attempts);
    const details = await p.admin.getJobDetails({ jobId: job.id });
    expect(details.events.filter((event) => event.errorCode).map((event) => event.errorCode)).toEqual(
      Array.from({ length: attempts }, () => 'VALIDATION_OUTPUT_SIZE'),
    );
    // Every refused output counted once, under the model that made it.
    const model = details.job!.job!.snapshot!.providerModel;
    expect((await rejectedByModel('size'))[model]).toBe((before[model] ?? 0) + attempts);
  }, 90_000);
});
