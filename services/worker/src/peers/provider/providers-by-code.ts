import type { ProviderCode } from '@atelier/job-types';
/**
 * The worker's vendors by provider code (their endpoints, or clients). It takes exactly one per code of
 * @atelier/job-types' PROVIDER_CODES (a missing or an unknown code does not compile), the list the
 * catalog checks a model's provider_code against.
 */
export function providersByCode<T>(clients: Readonly<Record<ProviderCode, T>>): ReadonlyMap<string, T> {
  return new Map(Object.entries(clients));
}
