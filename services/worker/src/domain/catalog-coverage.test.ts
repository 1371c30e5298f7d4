import { describe, expect, it } from 'vitest';
import { unrunnableModels, type CatalogModelRef } from './catalog-coverage.js';

const model = (overrides: Partial<CatalogModelRef> = {}): CatalogModelRef => ({
  id: '019a0000-0000-7000-8000-000000000001',
  code: 'stylizer',
  jobType: 'image.stylize',
  providerCode: 'sim',
  ...overrides,
});
const providers = new Set(['sim']);

describe('catalog coverage - which enabled models this worker cannot run', () => {
  it('finds none when every model has an executor and a provider client', () => {
    expect(unrunnableModels([model(), model({ code: 'upscaler', jobType: 'image.upscale' })], providers)).toEqual([]);
  });

  it('names a model whose provider has no client, and says so', () => {
    expect(unrunnableModels([model({ code: 'acme-stylizer', providerCode: 'acme' })], providers)).toEqual([
      { ...model({ code: 'acme-stylizer', providerCode: 'acme' }), problem: 'no provider client for provider code acme' },
    ]);
  });

  it('names a model of a job type this build does not ship', () => {
    expect(unrunnableModels([model({ jobType: 'video.stylize' })], providers)).toMatchObject([
      { jobType: 'video.stylize', problem: 'job type video.stylize is not one this worker runs' },
    ]);
  });

  it('needs no provider for a job type whose executor calls none', () => {
    expect(unrunnableModels([model({ jobType: 'system.canary', providerCode: 'none' })], providers)).toEqual([]);
  });
});
