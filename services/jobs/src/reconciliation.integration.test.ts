import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobsReconciliationV1 } from '@atelier/contracts';
import { uuidv7 } from '@atelier/db';
import { ErrorCode } from '@atelier/errors';
import type { PromiseClient } from '@atelier/grpc';
import { testClient, TEST_OPERATOR_ACTOR } from '@atelier/testing';
import { startJobsHarness, type JobsHarness } from './test-support/jobs-harness.js';

// Reconciliation with the vendor against a real database, jobs in-process: jobs and ledger rows
// written by SQL as the execution API and the ledger would leave them, vendor predictions handed
// in as a worker would list them. The first run of the provider covers the last hour up to one
// second ago (RECONCILIATION_SETTLE_MS); everything the test writes is minutes old.
const { BeginReconciliationOutcome: Outcome, ReconciliationFindingKind: Kind } = jobsReconciliationV1;
type Client = PromiseClient<jobsReconciliationV1.ProviderReconciliationServiceClient>;

let h: JobsHarness;
let worker: Client;
let operator: Client;
const WORKER_1 = 'pod-1/100/aaaaaa';
const WORKER_2 = 'pod-2/200/bbbbbb';
const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);

beforeAll(async () => {
  h = await startJobsHarness({ RECONCILIATION_SETTLE_MS: 1_000, RECONCILIATION_LEASE_MS: 1_500 }, { peers: false });
  worker = await testClient(jobsReconciliationV1.ProviderReconciliationServiceClient, h.address, 'worker');
  operator = await testClient(jobsReconciliationV1.ProviderReconciliationServiceClient, h.address, 'gateway');
}, 120_000);

afterAll(async () => {
  worker?.close();
  operator?.close();
  await h?.stop();
});

/** An image job of provider sim, as CreateJob and a claim would leave it (provider_request_id: RecordProviderRequest's). */
async function insertJob(providerRequestId: string | null = null): Promise<string> {
  const id = uuidv7();
  await h.db.query(
    `INSERT INTO jobs.generation_jobs
       (id, user_id, job_type, media_kind, queue, model_id, expects_output, provider_code_snapshot, provider_model_snapshot,
        model_version_snapshot, status, max_attempts, idempotency_key, request_hash, next_attempt_at, provider_request_id)
     VALUES ($1, 'reconcile-user', 'image.stylize', 'image', 'interactive', $2, false, 'sim', 'sim-stylize', 'v1', 'queued', 3,
             $3, $4, now(), $5)`,
    [id, randomUUID(), `key-${id}`, randomBytes(32), providerRequestId],
  );
  return id;
}

/** A submit the ledger recorded (jobs.provider_calls, migration 0014). */
async function insertSubmit(jobId: string, vendorId: string, calledAt: Date, credentialMode = 'platform_key'): Promise<void> {
  await h.db.query(
    `INSERT INTO jobs.provider_calls
       (job_id, attempt, call_kind, request_key, vendor_id, provider_code, provider_model, model_version, credential_mode,
        credential_id, outcome, http_status, latency_ms, called_at)
     VALUES ($1, 1, 'submit', $2, $3, 'sim', 'sim-stylize', 'v1', $4, 'platform:0123456789ab', 'ok', 201, 40, $5)`,
    [jobId, randomUUID(), vendorId, credentialMode, calledAt],
  );
}

const prediction = (
  id: string,
  status: string,
  idempotencyKey?: string,
  createdAt = minutesAgo(5),
): jobsReconciliationV1.VendorPrediction => ({
  id,
  status,
  createdAt,
  idempotencyKey,
  predictTimeMs: status === 'succeeded' ? 1_500 : undefined,
  images: status === 'succeeded' ? 1 : undefined,
});

const pred = () => `pred_${randomBytes(6).toString('hex')}`;

async function begin(workerId = WORKER_1) {
  return worker.beginReconciliation({ providerCode: 'sim', workerId });
}

async function findings(request: Partial<jobsReconciliationV1.ListReconciliationFindingsRequest> = {}) {
  return operator.listReconciliationFindings(
    jobsReconciliationV1.ListReconciliationFindingsRequest.fromPartial({ pageSize: 100, ...request }),
  );
}

const kindsOf = (counts: jobsReconciliationV1.FindingCount[]) => Object.fromEntries(counts.map((count) => [Kind[count.kind], count.count]));

// The first run's cast, kept for the re-run.
const listed: jobsReconciliationV1.VendorPrediction[] = [];
const expected: { unknown: string[]; doubled: string; ghost: { jobId: string; vendorId: string }; userKeyGhost: string } = {
  unknown: [],
  doubled: '',
  ghost: { jobId: '', vendorId: '' },
  userKeyGhost: '',
};

describe('reconciliation - matching the vendor to jobs and the ledger', () => {
  it('records each kind of finding once, and nothing for predictions a job accounts for', async () => {
    // Known through the job's recorded provider request.
    const byRequest = pred();
    await insertJob(byRequest);
    // Known through the ledger only.
    const byLedger = pred();
    await insertSubmit(await insertJob(), byLedger, minutesAgo(5));
    // Known through the Idempotency-Key: the job id, and the job id with a suffix after a failed prediction.
    const keyed = await insertJob();
    // A job billed twice: two succeeded predictions (keys <job> and <job>:2) around a failed one.
    const doubled = await insertJob();
    // Retried after a vendor failure: one failed and one succeeded prediction is no double charge.
    const retried = await insertJob();
    // A ledger submit (platform key) the vendor does not list; one with a user's key is not ours to reconcile.
    const ghost = { jobId: await insertJob(), vendorId: pred() };
    await insertSubmit(ghost.jobId, ghost.vendorId, minutesAgo(5));
    const userKeyGhost = pred();
    await insertSubmit(await insertJob(), userKeyGhost, minutesAgo(5), 'user_key');

    const unknown = [pred(), pred(), pred()];
    listed.push(
      prediction(byRequest, 'succeeded', 'not-a-job-key'),
      prediction(byLedger, 'succeeded'),
      prediction(pred(), 'succeeded', keyed),
      prediction(pred(), 'failed', `${keyed}:1`),
      prediction(pred(), 'succeeded', doubled),
      prediction(pred(), 'failed', `${doubled}:1`),
      prediction(pred(), 'succeeded', `${doubled}:2`),
      prediction(pred(), 'failed', retried),
      prediction(pred(), 'succeeded', `${retried}:1`),
      // Behind the system's back: no key, a key that is no job's (a UUID nobody created), a key of another shape.
      prediction(unknown[0]!, 'succeeded'),
      prediction(unknown[1]!, 'processing', randomUUID()),
      prediction(unknown[2]!, 'canceled', 'manual-test'),
    );
    Object.assign(expected, { unknown, doubled, ghost, userKeyGhost });

    const started = await begin();
    expect(started.outcome).toBe(Outcome.STARTED);
    const run = started.run!;
    expect(run.windowEnd!.getTime()).toBeGreaterThan(Date.now() - 5_000);
    expect(run.windowEnd!.getTime() - run.windowStart!.getTime()).toBeLessThanOrEqual(3_600_000);
    expect(run.windowStart!.getTime() - run.listFrom!.getTime()).toBe(60_000);
    // Two pages, as the vendor's list would come; a page repeated is harmless.
    await worker.submitVendorPredictions({ runId: run.runId, workerId: WORKER_1, predictions: listed.slice(0, 6) });
    await worker.submitVendorPredictions({ runId: run.runId, workerId: WORKER_1, predictions: listed.slice(6) });
    await worker.submitVendorPredictions({ runId: run.runId, workerId: WORKER_1, predictions: listed.slice(6) });
    const finished = await worker.finishReconciliation({ runId: run.runId, workerId: WORKER_1 });
    expect(finished.predictionsSeen).toBe(listed.length);
    expect(kindsOf(finished.newFindings)).toEqual({
      PREDICTION_WITHOUT_JOB: 3,
      JOB_WITH_TWO_BILLABLE_PREDICTIONS: 1,
      LEDGER_UNKNOWN_TO_VENDOR: 1,
    });

    const all = (await findings()).findings;
    expect(
      all
        .filter((finding) => finding.kind === Kind.PREDICTION_WITHOUT_JOB)
        .map((finding) => finding.vendorId)
        .sort(),
    ).toEqual([...unknown].sort());
    expect(all.find((finding) => finding.vendorId === unknown[1])).toMatchObject({ jobId: undefined, runId: run.runId });
    const twice = all.find((finding) => finding.kind === Kind.JOB_WITH_TWO_BILLABLE_PREDICTIONS)!;
    expect(twice).toMatchObject({ jobId: doubled, vendorId: '' });
    expect(twice.detail).toContain('2 succeeded predictions');
    expect(twice.detail).toContain(`key ${doubled}:2`);
    expect(all.find((finding) => finding.kind === Kind.LEDGER_UNKNOWN_TO_VENDOR)).toMatchObject({
      jobId: ghost.jobId,
      vendorId: ghost.vendorId,
    });
    expect(all.map((finding) => finding.vendorId)).not.toContain(userKeyGhost);
    expect(await h.app.metricsRegistry.getSingleMetricAsString('atelier_reconciliation_findings_total')).toContain(
      'atelier_reconciliation_findings_total{provider="sim",kind="prediction_without_job",service="jobs"} 3',
    );
  });

  it('never records a finding twice: a later run listing the same predictions adds none, and finds what is new', async () => {
    const before = (await findings()).findings.length;
    await new Promise((resolve) => setTimeout(resolve, 50));
    const again = await begin();
    expect(again.outcome).toBe(Outcome.STARTED);
    const run = again.run!;
    const fresh = prediction(pred(), 'succeeded', undefined, new Date(run.windowStart!.getTime() + 1));
    await worker.submitVendorPredictions({ runId: run.runId, workerId: WORKER_1, predictions: [...listed, fresh] });
    const finished = await worker.finishReconciliation({ runId: run.runId, workerId: WORKER_1 });
    expect(kindsOf(finished.newFindings)).toEqual({ PREDICTION_WITHOUT_JOB: 1 });
    expect((await findings()).findings.length).toBe(before + 1);
    expect(run.windowStart).toEqual(again.run!.windowStart);
  });
});

describe('reconciliation - one window, one worker', () => {
  it("gives a window to one worker at a time, refuses another worker's pages, and offers it again once its lease expired", async () => {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const first = await begin(WORKER_1);
    expect(first.outcome).toBe(Outcome.STARTED);
    const [second, third] = await Promise.all([begin(WORKER_2), begin(WORKER_2)]);
    expect([second.outcome, third.outcome]).toEqual([Outcome.TAKEN, Outcome.TAKEN]);
    await expect(worker.submitVendorPredictions({ runId: first.run!.runId, workerId: WORKER_2, predictions: [] })).rejects.toMatchObject({
      code: ErrorCode.ABORTED,
      reason: 'RECONCILIATION_LEASE_LOST',
    });

    // WORKER_1 stops renewing: after the lease (1.5 s) the same window goes to WORKER_2.
    await new Promise((resolve) => setTimeout(resolve, 1_700));
    const takeover = await begin(WORKER_2);
    expect(takeover.outcome).toBe(Outcome.STARTED);
    expect(takeover.run!.windowStart).toEqual(first.run!.windowStart);
    await expect(worker.finishReconciliation({ runId: first.run!.runId, workerId: WORKER_1 })).rejects.toMatchObject({
      code: ErrorCode.ABORTED,
      reason: 'RECONCILIATION_LEASE_LOST',
    });
    await worker.finishReconciliation({ runId: takeover.run!.runId, workerId: WORKER_2 });
    const { rows } = await h.db.query<{ status: string; n: number }>(
      `SELECT status, count(*)::int AS n FROM jobs.reconciliation_runs GROUP BY status ORDER BY status`,
    );
    expect(rows).toEqual([
      { status: 'abandoned', n: 1 },
      { status: 'finished', n: 3 },
    ]);
  });

  it('gives a free window to exactly one of two workers asking at the same moment', async () => {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const answers = await Promise.all([begin(WORKER_1), begin(WORKER_2), begin(WORKER_1), begin(WORKER_2)]);
    const started = answers.filter((answer) => answer.outcome === Outcome.STARTED);
    expect(started).toHaveLength(1);
    expect(answers.filter((answer) => answer.outcome === Outcome.TAKEN)).toHaveLength(3);
    const [winner] = started;
    const workerId = answers.indexOf(winner!) % 2 === 0 ? WORKER_1 : WORKER_2;
    await worker.finishReconciliation({ runId: winner!.run!.runId, workerId });
  });

  it('answers NOT_DUE while the covered windows reach now minus the settle margin', async () => {
    await h.db.query(`UPDATE jobs.reconciliation_runs SET window_end = window_end + interval '1 hour' WHERE status = 'finished'`);
    expect((await begin()).outcome).toBe(Outcome.NOT_DUE);
    await h.db.query(`UPDATE jobs.reconciliation_runs SET window_end = window_end - interval '1 hour' WHERE status = 'finished'`);
  });

  it('refuses a bad page with the field at fault', async () => {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = await begin();
    const runId = started.run!.runId;
    await expect(
      worker.submitVendorPredictions({ runId, workerId: WORKER_1, predictions: [{ ...prediction(pred(), 'billed'), status: 'billed' }] }),
    ).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENT, field: 'predictions[0].status' });
    await expect(
      worker.submitVendorPredictions({
        runId,
        workerId: WORKER_1,
        predictions: Array.from({ length: 501 }, () => prediction(pred(), 'failed')),
      }),
    ).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENT, field: 'predictions' });
    await expect(worker.beginReconciliation({ providerCode: 'acme', workerId: WORKER_1 })).rejects.toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      field: 'provider_code',
    });
    await worker.finishReconciliation({ runId, workerId: WORKER_1 });
  });
});

describe('reconciliation - operators', () => {
  it('lists findings by kind and open ones, and records who acknowledged one, once', async () => {
    const doubled = await findings({ kind: Kind.JOB_WITH_TWO_BILLABLE_PREDICTIONS });
    expect(doubled.findings.map((finding) => finding.jobId)).toEqual([expected.doubled]);
    expect(doubled.coverage).toEqual([expect.objectContaining({ providerCode: 'sim', lastFinishedAt: expect.any(Date) })]);
    const open = doubled.unacknowledgedTotal;
    expect(open).toBe(6);

    const id = doubled.findings[0]!.id;
    const acknowledged = await operator.acknowledgeReconciliationFinding({
      actor: TEST_OPERATOR_ACTOR,
      findingId: id,
      operatorId: 'ops-alice',
    });
    expect(acknowledged.finding).toMatchObject({ acknowledgedBy: 'ops-alice', acknowledgedAt: expect.any(Date) });
    const repeated = await operator.acknowledgeReconciliationFinding({ actor: TEST_OPERATOR_ACTOR, findingId: id, operatorId: 'ops-bob' });
    expect(repeated.finding).toMatchObject({ acknowledgedBy: 'ops-alice', acknowledgedAt: acknowledged.finding!.acknowledgedAt });
    const stillOpen = await findings({ unacknowledgedOnly: true });
    expect(stillOpen.unacknowledgedTotal).toBe(open - 1);
    expect(stillOpen.findings.map((finding) => finding.id)).not.toContain(id);
    expect(await h.app.metricsRegistry.getSingleMetricAsString('atelier_reconciliation_findings_open')).toContain(
      'atelier_reconciliation_findings_open{provider="sim",kind="job_with_two_billable_predictions",service="jobs"} 0',
    );

    const firstPage = await findings({ pageSize: 2 });
    const secondPage = await findings({ pageSize: 2, pageToken: firstPage.nextPageToken });
    expect(secondPage.findings[0]!.id).toBeLessThan(firstPage.findings[1]!.id);
    await expect(
      operator.acknowledgeReconciliationFinding({ actor: TEST_OPERATOR_ACTOR, findingId: 999_999, operatorId: 'ops-alice' }),
    ).rejects.toMatchObject({
      code: ErrorCode.NOT_FOUND,
    });
  });

  it('lets workers run reconciliation and only operators read and acknowledge findings', async () => {
    const asMedia = await testClient(jobsReconciliationV1.ProviderReconciliationServiceClient, h.address, 'media');
    const asOps = await testClient(jobsReconciliationV1.ProviderReconciliationServiceClient, h.address, 'ops');
    try {
      await expect(operator.beginReconciliation({ providerCode: 'sim', workerId: WORKER_1 })).rejects.toMatchObject({
        code: ErrorCode.PERMISSION_DENIED,
        message: expect.stringContaining('service gateway may not call /atelier.jobs.v1.ProviderReconciliationService/BeginReconciliation'),
      });
      await expect(
        worker.listReconciliationFindings({ providerCode: '', kind: 0, unacknowledgedOnly: false, pageSize: 1, pageToken: '' }),
      ).rejects.toMatchObject({
        code: ErrorCode.PERMISSION_DENIED,
      });
      await expect(
        worker.acknowledgeReconciliationFinding({ actor: TEST_OPERATOR_ACTOR, findingId: 1, operatorId: 'x' }),
      ).rejects.toMatchObject({
        code: ErrorCode.PERMISSION_DENIED,
      });
      await expect(asMedia.finishReconciliation({ runId: randomUUID(), workerId: WORKER_1 })).rejects.toMatchObject({
        code: ErrorCode.PERMISSION_DENIED,
      });
      await expect(
        asOps.listReconciliationFindings(jobsReconciliationV1.ListReconciliationFindingsRequest.fromPartial({})),
      ).resolves.toBeDefined();
    } finally {
      asMedia.close();
      asOps.close();
    }
  });
});
