import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobsUsageV1 } from '@atelier/contracts';
import { ErrorCode } from '@atelier/errors';
import type { PromiseClient } from '@atelier/grpc';
import { catalogChangesSubject, parseCatalogChange } from '@atelier/nats';
import { testClient, TEST_OPERATOR_ACTOR } from '@atelier/testing';
import {
  catalogChoice,
  refusal,
  startJobsHarness,
  stylizeRequest,
  uploadInputImage,
  type JobsHarness,
} from './test-support/jobs-harness.js';

// The usage ledger (docs/usage-ledger.md) against a real database, catalog and its prices.
const { ProviderCallKind: Kind, ProviderCallOutcome: Outcome, SpendGrouping } = jobsUsageV1;

let h: JobsHarness;
let choice: Awaited<ReturnType<typeof catalogChoice>>;
let worker: PromiseClient<jobsUsageV1.ProviderUsageServiceClient>;
let operator: PromiseClient<jobsUsageV1.ProviderUsageServiceClient>;

beforeAll(async () => {
  h = await startJobsHarness({ QUOTA_MAX_IN_FLIGHT: 1000, QUOTA_DAILY_LIMIT: 100000, QUOTA_MONTHLY_LIMIT: 100000 });
  choice = await catalogChoice(h.catalog);
  worker = await testClient(jobsUsageV1.ProviderUsageServiceClient, h.address, 'worker');
  operator = await testClient(jobsUsageV1.ProviderUsageServiceClient, h.address, 'gateway');
}, 90_000);

afterAll(async () => {
  worker?.close();
  operator?.close();
  await h?.stop();
});

let seq = 0;
const newStylize = async (user = `ledger-user-${process.pid}-${++seq}`) =>
  (
    await h.jobs.createJob(
      stylizeRequest(choice, { userId: user, idempotencyKey: `s-${++seq}`, inputAssetId: await uploadInputImage(h.media, user) }),
    )
  ).job!;

const call = (jobId: string, patch: Partial<jobsUsageV1.ProviderCallInput> = {}): jobsUsageV1.ProviderCallInput =>
  jobsUsageV1.ProviderCallInput.fromPartial({
    jobId,
    attempt: 1,
    callKind: Kind.POLL,
    requestKey: randomUUID(),
    vendorId: `pred-${jobId}`,
    providerCode: choice.stylizer.providerCode,
    providerModel: choice.stylizer.providerModel,
    modelVersion: choice.stylizer.modelVersion,
    credentialMode: 'platform_key',
    credentialId: 'platform:0123456789ab',
    outcome: Outcome.OK,
    httpStatus: 200,
    latencyMs: 12,
    calledAt: new Date(),
    ...patch,
  });

const rowsOf = async (jobId: string) =>
  (
    await h.db.query(
      `SELECT call_kind, request_key, user_id, model_id, billable, cost_micros::int AS cost, currency
         FROM jobs.provider_calls WHERE job_id = $1 ORDER BY id`,
      [jobId],
    )
  ).rows;

describe('usage ledger - RecordProviderCalls', () => {
  it('records a journey once: the same batch written twice leaves the same rows, with the owner and model from the job', async () => {
    const job = await newStylize();
    const batch = [
      call(job.id, { callKind: Kind.SUBMIT, httpStatus: 201 }),
      call(job.id, { callKind: Kind.POLL }),
      call(job.id, { callKind: Kind.POLL, predictTimeMs: 1500, images: 1 }),
      call(job.id, { callKind: Kind.OUTPUT_FETCH, vendorId: `pred-${job.id}` }),
    ];
    expect(await worker.recordProviderCalls({ calls: batch })).toEqual({ recorded: 4, unknownJobIds: [] });
    const first = await rowsOf(job.id);
    expect(await worker.recordProviderCalls({ calls: batch })).toEqual({ recorded: 0, unknownJobIds: [] });
    expect(await rowsOf(job.id)).toEqual(first);
    expect(first.map((row) => [row.call_kind, row.billable, row.cost, row.currency])).toEqual([
      ['submit', false, null, null],
      ['poll', false, null, null],
      // 1.5 predict seconds at the seeded 0.0023 USD.
      ['poll', true, 3450, 'USD'],
      ['output_fetch', false, null, null],
    ]);
    expect(first.every((row) => row.user_id === job.userId && row.model_id === choice.stylizer.id)).toBe(true);

    const { calls, cost, billablePredictions } = await operator.listJobProviderCalls({ jobId: job.id });
    expect(calls.map((c) => c.requestKey)).toEqual(batch.map((c) => c.requestKey));
    expect(cost).toEqual([{ currency: 'USD', costMicros: 3450 }]);
    expect(billablePredictions).toBe(1);
  });

  it('bills a prediction once when many writers report its units at the same moment, and once within one batch', async () => {
    const job = await newStylize();
    const reports = Array.from({ length: 12 }, () => call(job.id, { predictTimeMs: 2000 }));
    await Promise.all(reports.map((report) => worker.recordProviderCalls({ calls: [report] })));
    const rows = await rowsOf(job.id);
    expect(rows).toHaveLength(12);
    expect(rows.filter((row) => row.billable).map((row) => row.cost)).toEqual([4600]);

    const other = await newStylize();
    await worker.recordProviderCalls({ calls: [call(other.id, { predictTimeMs: 1000 }), call(other.id, { predictTimeMs: 1000 })] });
    expect((await rowsOf(other.id)).map((row) => row.billable)).toEqual([true, false]);
  });

  it("takes the provider model and version of a call that has none (a provider-cancel task's) from the job", async () => {
    const job = await newStylize();
    await worker.recordProviderCalls({ calls: [call(job.id, { callKind: Kind.CANCEL, attempt: 0, providerModel: '', modelVersion: '' })] });
    const { rows } = await h.db.query(`SELECT attempt, provider_model, model_version FROM jobs.provider_calls WHERE job_id = $1`, [job.id]);
    expect(rows).toEqual([{ attempt: 0, provider_model: choice.stylizer.providerModel, model_version: choice.stylizer.modelVersion }]);
  });

  it('records a call of a job jobs does not have without owner or cost, and names the job', async () => {
    const ghost = randomUUID();
    const answer = await worker.recordProviderCalls({ calls: [call(ghost, { callKind: Kind.CANCEL, predictTimeMs: 500 })] });
    expect(answer).toEqual({ recorded: 1, unknownJobIds: [ghost] });
    expect(await rowsOf(ghost)).toMatchObject([{ call_kind: 'cancel', user_id: null, model_id: null, billable: true, cost: null }]);
  });

  it('refuses a bad field naming it, and writes nothing of the batch', async () => {
    const job = await newStylize();
    const cases: [Partial<jobsUsageV1.ProviderCallInput>, string][] = [
      [{ callKind: Kind.UNSPECIFIED }, 'calls[1].call_kind'],
      [{ outcome: 42 as jobsUsageV1.ProviderCallOutcome }, 'calls[1].outcome'],
      [{ credentialMode: 'borrowed' }, 'calls[1].credential_mode'],
      [{ requestKey: '' }, 'calls[1].request_key'],
      [{ requestKey: 'k'.repeat(201) }, 'calls[1].request_key'],
      [{ attempt: 21 }, 'calls[1].attempt'],
      [{ latencyMs: -1 }, 'calls[1].latency_ms'],
      [{ httpStatus: 99 }, 'calls[1].http_status'],
      [{ predictTimeMs: -5 }, 'calls[1].predict_time_ms'],
      [{ jobId: 'not-a-uuid' }, 'calls[1].job_id'],
      [{ providerCode: 'Sim!' }, 'calls[1].provider_code'],
      [{ calledAt: new Date(Date.now() + 3_600_000) }, 'calls[1].called_at'],
    ];
    for (const [patch, field] of cases) {
      expect(await refusal(worker.recordProviderCalls({ calls: [call(job.id), call(job.id, patch)] }))).toMatchObject({
        code: ErrorCode.INVALID_ARGUMENT,
        field,
      });
    }
    expect(await rowsOf(job.id)).toEqual([]);
    const tooMany = Array.from({ length: 501 }, () => call(job.id));
    expect(await refusal(worker.recordProviderCalls({ calls: tooMany }))).toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      field: 'calls',
    });
  });

  it('lets only the worker record and only operators read', async () => {
    expect(await refusal(operator.recordProviderCalls({ calls: [] }))).toMatchObject({ code: ErrorCode.PERMISSION_DENIED });
    const window = { from: new Date(Date.now() - 3_600_000), to: new Date(Date.now() + 3_600_000) };
    expect(await refusal(worker.getSpend({ ...window, groupBy: SpendGrouping.DAY, credentialMode: '' }))).toMatchObject({
      code: ErrorCode.PERMISSION_DENIED,
    });
    const media = await testClient(jobsUsageV1.ProviderUsageServiceClient, h.address, 'media');
    try {
      expect(await refusal(media.listJobProviderCalls({ jobId: randomUUID() }))).toMatchObject({ code: ErrorCode.PERMISSION_DENIED });
    } finally {
      media.close();
    }
  });
});

describe('usage ledger - spend', () => {
  it('sums billable rows per day, provider and model, and ranks the users who cost most', async () => {
    const window = { from: new Date(Date.now() - 3_600_000), to: new Date(Date.now() + 3_600_000) };
    const big = await newStylize();
    await worker.recordProviderCalls({ calls: [call(big.id, { predictTimeMs: 100_000 })] });
    const byProvider = await operator.getSpend({ ...window, groupBy: SpendGrouping.PROVIDER, credentialMode: '' });
    const { rows } = await h.db.query<{ total: number }>(
      `SELECT sum(cost_micros)::float8 AS total FROM jobs.provider_calls WHERE billable AND currency = 'USD'`,
    );
    expect(byProvider.rows).toContainEqual(expect.objectContaining({ key: 'sim', currency: 'USD', costMicros: rows[0]!.total }));
    expect(byProvider.totals.find((total) => total.currency === 'USD')!.costMicros).toBe(rows[0]!.total);
    const byModel = await operator.getSpend({ ...window, groupBy: SpendGrouping.MODEL, credentialMode: 'platform_key' });
    expect(byModel.rows.find((row) => row.currency === 'USD')).toMatchObject({
      key: `sim/${choice.stylizer.providerModel}@${choice.stylizer.modelVersion}`,
      modelId: choice.stylizer.id,
    });
    const byDay = await operator.getSpend({ ...window, groupBy: SpendGrouping.DAY, credentialMode: 'user_key' });
    expect(byDay.rows).toEqual([]);
    const top = await operator.listTopSpenders({ ...window, limit: 1 });
    expect(top.spenders).toEqual([{ userId: big.userId, currency: 'USD', costMicros: 230_000, jobs: 1 }]);
    expect(
      await refusal(operator.getSpend({ from: window.to, to: window.from, groupBy: SpendGrouping.DAY, credentialMode: '' })),
    ).toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      field: 'to',
    });
  });
});

describe('usage ledger - prices', () => {
  it('costs a call at the price in force when it was made, and RecomputeCosts restores costs from the units, idempotently', async () => {
    const job = await newStylize();
    const switchAt = new Date(Date.now() + 2_000);
    // jobs prices a call from its catalog cache, which catalog's change notice clears: the calls
    // are recorded once the notice is out (CI on a loaded machine priced one from the old copy).
    await afterCatalogNotice(choice.stylizer.id, () =>
      h.catalog.setModelPrice({
        actor: TEST_OPERATOR_ACTOR,
        modelId: choice.stylizer.id,
        unit: 'predict_second',
        unitPriceMicros: 5000,
        currency: 'USD',
        effectiveFrom: switchAt,
      }),
    );
    const before = call(job.id, { vendorId: `before-${job.id}`, predictTimeMs: 1000, calledAt: new Date(switchAt.getTime() - 1_000) });
    const after = call(job.id, { vendorId: `after-${job.id}`, predictTimeMs: 1000, calledAt: new Date(switchAt.getTime() + 1_000) });
    await worker.recordProviderCalls({ calls: [before, after] });
    expect((await rowsOf(job.id)).map((row) => row.cost)).toEqual([2300, 5000]);

    // A cost lost (catalog was away at write) or wrong is recomputed from the units and the price history.
    await h.db.query(`UPDATE jobs.provider_calls SET cost_micros = NULL, currency = NULL WHERE request_key = $1`, [before.requestKey]);
    await h.db.query(`UPDATE jobs.provider_calls SET cost_micros = 1 WHERE request_key = $1`, [after.requestKey]);
    const window = { from: new Date(Date.now() - 3_600_000), to: new Date(Date.now() + 3_600_000) };
    const first = await operator.recomputeCosts(window);
    expect(first.changed).toBe(2);
    expect(first.examined).toBeGreaterThanOrEqual(2);
    expect((await rowsOf(job.id)).map((row) => [row.cost, row.currency])).toEqual([
      [2300, 'USD'],
      [5000, 'USD'],
    ]);
    expect((await operator.recomputeCosts(window)).changed).toBe(0);
  });
});

/**
 * Runs a catalog change and resolves once catalog's change notice for `modelId` is on NATS, and
 * the jobs app of this process, subscribed to the same subject, has had a moment to drop its copy.
 */
async function afterCatalogNotice(modelId: string, change: () => Promise<unknown>): Promise<void> {
  let heard: () => void = () => {};
  const noticed = new Promise<void>((resolve) => (heard = resolve));
  const subscription = h.nats.subscribe(catalogChangesSubject(h.config.NATS_STREAM_PREFIX), {
    callback: (_error, message) => {
      if (parseCatalogChange(message.data)?.id === modelId) heard();
    },
  });
  await h.nats.flush();
  let timer: NodeJS.Timeout | undefined;
  try {
    await change();
    await Promise.race([
      noticed,
      new Promise((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`no catalog change notice for ${modelId} within 5 s`)), 5_000);
      }),
    ]);
  } finally {
    clearTimeout(timer);
    subscription.unsubscribe();
  }
  await new Promise((resolve) => setTimeout(resolve, 200));
}
