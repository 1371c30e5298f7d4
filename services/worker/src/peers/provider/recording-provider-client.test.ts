import { describe, expect, it } from 'vitest';
import { jobsUsageV1 } from '@atelier/contracts';
import type { Prediction, ProviderClient } from './provider-client.js';
import { ProviderFailure } from './provider-failure.js';
import { recordingProviderClient } from './recording-provider-client.js';

const { ProviderCallKind: Kind, ProviderCallOutcome: Outcome } = jobsUsageV1;

const prediction = (status: Prediction['status'], metrics?: Prediction['metrics']): Prediction => ({
  id: 'pred_1',
  status,
  progress: 0,
  output_url: null,
  output_content_type: null,
  error: null,
  safety: null,
  metrics,
});

function setup(inner: Partial<ProviderClient>) {
  const rows: jobsUsageV1.ProviderCallInput[] = [];
  const client = recordingProviderClient(
    inner as ProviderClient,
    {
      jobId: '019a0000-0000-7000-8000-00000000aaaa',
      attempt: 2,
      providerCode: 'sim',
      providerModel: 'm',
      modelVersion: '1',
      credential: { mode: 'platform_key', id: 'platform:0123456789ab' },
    },
    { record: (row) => void rows.push(row) },
  );
  return { client, rows };
}

describe('recording provider client - one ledger row per call', () => {
  it('records submit, poll, cancel and output fetch with their vendor id, a fresh request key each, and units on the ended poll', async () => {
    const { client, rows } = setup({
      submit: async () => prediction('starting'),
      get: async () => prediction('succeeded', { predict_time: 1.2345, images: 1 }),
      cancel: async () => {},
      download: async () => ({ bytes: Buffer.from('x'), contentType: 'image/png' }),
    });
    const signal = new AbortController().signal;
    await client.submit({ model: 'm', version: '1', input: { image_url: 'u' } }, 'k', signal);
    await client.get('pred_1', signal);
    await client.download('http://x/out', signal);
    await client.cancel('pred_1');
    expect(rows.map((row) => [row.callKind, row.vendorId, row.outcome, row.predictTimeMs, row.images])).toEqual([
      [Kind.SUBMIT, 'pred_1', Outcome.OK, undefined, undefined],
      [Kind.POLL, 'pred_1', Outcome.OK, 1235, 1],
      [Kind.OUTPUT_FETCH, 'pred_1', Outcome.OK, undefined, undefined],
      [Kind.CANCEL, 'pred_1', Outcome.OK, undefined, undefined],
    ]);
    expect(new Set(rows.map((row) => row.requestKey)).size).toBe(4);
    expect(rows[0]).toMatchObject({
      attempt: 2,
      credentialMode: 'platform_key',
      credentialId: 'platform:0123456789ab',
    });
    expect(JSON.stringify(rows)).not.toContain('secret-key');
  });

  it('records how a failed call ended, and rethrows it untouched', async () => {
    const limited = ProviderFailure.provider('PROVIDER_RATE_LIMITED', 'slow down', { transient: true, httpStatus: 429 });
    const refused = ProviderFailure.credential('CREDENTIAL_INVALID', 'no', { httpStatus: 401 });
    const down = ProviderFailure.provider('PROVIDER_UNAVAILABLE', 'down', { transient: true, httpStatus: 503 });
    const aborted = new AbortController();
    aborted.abort(new Error('lease lost'));
    const failures = [limited, refused, down];
    const { client, rows } = setup({
      submit: async () => {
        throw failures.shift() ?? aborted.signal.reason;
      },
    });
    const request = { model: 'm', version: '1', input: { image_url: 'u' } };
    for (const expected of [limited, refused, down]) {
      await expect(client.submit(request, 'k', new AbortController().signal)).rejects.toBe(expected);
    }
    await expect(client.submit(request, 'k', aborted.signal)).rejects.toBe(aborted.signal.reason);
    expect(rows.map((row) => [row.outcome, row.errorCode, row.httpStatus, row.vendorId])).toEqual([
      [Outcome.RATE_LIMITED, 'PROVIDER_RATE_LIMITED', 429, ''],
      [Outcome.REFUSED, 'CREDENTIAL_INVALID', 401, ''],
      [Outcome.UNAVAILABLE, 'PROVIDER_UNAVAILABLE', 503, ''],
      [Outcome.ABORTED, 'ABORTED', undefined, ''],
    ]);
  });
});
