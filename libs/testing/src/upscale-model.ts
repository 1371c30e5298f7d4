import type { MobileApi } from './mobile-api.js';

/**
 * An image.upscale model for the tests of upscale jobs and of the background queue they run on.
 * The seeded catalog has none enabled (the app offers no upscale: catalog migration 0004), so a
 * test adds this one as an operator would: through catalog's UpsertModel, or the admin API with
 * addUpscaleModel. Adding it again changes nothing and answers the same model.
 */
export const TEST_UPSCALE_MODEL = {
  code: 'test-upscaler',
  displayName: 'Test Upscaler',
  providerCode: 'sim',
  // provider-sim's model that enlarges instead of stylising.
  providerModel: 'sim-upscale',
  modelVersion: '1.0',
  jobType: 'image.upscale',
  // Last in display order: a test that takes the catalog's first model keeps it.
  sortOrder: 1_000_000,
  defaultParameters: { scale: 2 },
  credentialModes: [] as string[],
};

/** Adds TEST_UPSCALE_MODEL through the gateway's admin API (a token with the admin role) and answers its id. */
export async function addUpscaleModel(api: MobileApi, adminToken: string): Promise<string> {
  const { code, ...fields } = TEST_UPSCALE_MODEL;
  const answer = await api.call<{ model: { id: string } }>('PUT', `/admin-api/catalog/models/${code}`, {
    token: adminToken,
    body: { mediaKind: 'image', ...fields },
  });
  if (answer.status !== 200 && answer.status !== 201) {
    throw new Error(`adding the upscale model answered ${answer.status} ${JSON.stringify(answer.body)}`);
  }
  return answer.body.model.id;
}
