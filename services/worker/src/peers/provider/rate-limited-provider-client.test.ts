import { describe, expect, it, vi } from 'vitest';
import { createLogger } from '@atelier/logging';
import type { Prediction, ProviderClient } from './provider-client.js';
import { ProviderFailure } from './provider-failure.js';
import { ProviderPermits, type ProviderLimiter } from './provider-permits.js';
import { rateLimitedProviderClient } from './rate-limited-provider-client.js';

const logger = createLogger({ service: 'test', level: 'silent' });
const prediction = { id: 'pred_1', status: 'starting' } as Prediction;

function fakeClient(overrides: Partial<ProviderClient> = {}): ProviderClient {
  return {
    submit: vi.fn(async () => prediction),
    get: vi.fn(async () => prediction),
    cancel: vi.fn(async () => {}),
    download: vi.fn(async () => ({ bytes: Buffer.from('x'), contentType: 'image/png' })),
    ...overrides,
  };
}

describe('rateLimitedProviderClient', () => {
  it('takes a permit before each API call, none for a download, and reports a 429 with its Retry-After', async () => {
    const order: string[] = [];
    const limiter: ProviderLimiter = {
      acquire: vi.fn(async () => void order.push('permit')),
      throttled: vi.fn(),
    };
    const limited = new ProviderFailure(ProviderFailure.provider('PROVIDER_RATE_LIMITED', 'x').errorClass, 'PROVIDER_RATE_LIMITED', '429', {
      transient: true,
      retryAfterMs: 2_000,
    });
    const inner = fakeClient({
      submit: vi.fn(async () => {
        order.push('submit');
        return prediction;
      }),
      get: vi.fn(async () => {
        throw limited;
      }),
    });
    const client = rateLimitedProviderClient(inner, limiter);
    const signal = new AbortController().signal;
    await client.submit({ model: 'm', version: 'v', input: { image_url: 'u' } }, 'key', signal);
    await expect(client.get('pred_1', signal)).rejects.toBe(limited);
    await client.download('https://x/y', signal);
    await client.cancel('pred_1');
    expect(order.slice(0, 2)).toEqual(['permit', 'submit']);
    expect(limiter.acquire).toHaveBeenCalledTimes(3);
    expect(limiter.throttled).toHaveBeenCalledWith(2_000);
  });
});

describe('ProviderPermits', () => {
  it('asks for the waiting calls together, grants in arrival order, and asks again after retry_after_ms', async () => {
    const grants = [
      { granted: 1, retryAfterMs: 20, unmeteredForMs: 0 },
      { granted: 2, retryAfterMs: 0, unmeteredForMs: 0 },
    ];
    const acquireProviderPermits = vi.fn(async (_request: { wanted: number }) => grants.shift()!);
    const permits = new ProviderPermits({
      gates: { acquireProviderPermits, reportProviderThrottle: vi.fn(async () => ({})) } as never,
      providerCode: 'sim',
      workerId: 'w',
      logger,
    });
    const signal = new AbortController().signal;
    const done: number[] = [];
    await Promise.all([0, 1, 2].map((i) => permits.acquire(signal).then(() => done.push(i))));
    expect(done).toEqual([0, 1, 2]);
    expect(acquireProviderPermits.mock.calls.map(([request]) => request.wanted)).toEqual([3, 2]);
  });

  it('needs no ask while the provider is unmetered, and waits out a 429 it saw itself', async () => {
    const acquireProviderPermits = vi.fn(async () => ({ granted: 1, retryAfterMs: 0, unmeteredForMs: 60_000 }));
    const reportProviderThrottle = vi.fn(async () => ({}));
    const permits = new ProviderPermits({
      gates: { acquireProviderPermits, reportProviderThrottle } as never,
      providerCode: 'sim',
      workerId: 'w',
      logger,
    });
    const signal = new AbortController().signal;
    await permits.acquire(signal);
    await permits.acquire(signal);
    expect(acquireProviderPermits).toHaveBeenCalledTimes(1);
    permits.throttled(150);
    expect(reportProviderThrottle).toHaveBeenCalledWith({ providerCode: 'sim', retryAfterMs: 150, workerId: 'w' });
    const started = Date.now();
    await permits.acquire(signal);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('gives up a wait when its signal aborts', async () => {
    const permits = new ProviderPermits({
      gates: { acquireProviderPermits: vi.fn(async () => ({ granted: 0, retryAfterMs: 1_000, unmeteredForMs: 0 })) } as never,
      providerCode: 'sim',
      workerId: 'w',
      logger,
    });
    await expect(permits.acquire(AbortSignal.timeout(50))).rejects.toBeDefined();
  });
});
