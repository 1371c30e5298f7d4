/**
 * The AI vendors this build has a client for, by the `provider_code` of catalog models: the
 * catalog refuses a model naming any other, and the worker keeps exactly one client per code (a
 * missing or an unknown one does not compile). Adding a vendor is a line here and a client in the
 * worker.
 */
export const PROVIDER_CODES = ['sim'] as const;
export type ProviderCode = (typeof PROVIDER_CODES)[number];

/** Whether this build has a client for the provider code a catalog model names. */
export function isKnownProviderCode(code: string): code is ProviderCode {
  return (PROVIDER_CODES as readonly string[]).includes(code);
}
