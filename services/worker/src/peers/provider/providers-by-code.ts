import type { ProviderCode } from '@atelier/job-types';
import type { ProviderClient } from './provider-client.js';

/**
 * The worker's vendor clients by provider code. It takes exactly one client per code of
 * @atelier/job-types' PROVIDER_CODES (a missing or an unknown code does not compile), the list the
 * catalog checks a model's provider_code against.
 */
export function providersByCode(clients: Readonly<Record<ProviderCode, ProviderClient>>): ReadonlyMap<string, ProviderClient> {
  return new Map(Object.entries(clients));
}
