import { InvalidArgumentError } from '@atelier/errors';

/** Bounds of a user's vendor key and its label (docs/credentials.md). */
export const CREDENTIAL_LIMITS = {
  labelMaxLength: 64,
  keyMinLength: 8,
  keyMaxLength: 512,
  /** A user's keys at once; CREDENTIALS_MAX_PER_USER may lower or raise it within 1–50. */
  defaultMaxPerUser: 5,
} as const;

/** Printable ASCII without spaces: what vendors' keys are, and what fits a Bearer header. */
const KEY_PATTERN = /^[\x21-\x7e]+$/;
const PROVIDER_CODE_PATTERN = /^[a-z][a-z0-9_-]{0,63}$/;

export interface NewCredentialInput {
  providerCode: string;
  label: string;
  apiKey: string;
}

/** A create's input, checked: a known-looking provider code, a label of 1–64 characters, a key of 8–512 printable characters. */
export function requireCredentialInput(input: NewCredentialInput, providerCodes: readonly string[]): NewCredentialInput {
  if (!PROVIDER_CODE_PATTERN.test(input.providerCode) || !providerCodes.includes(input.providerCode)) {
    throw new InvalidArgumentError('provider_code', `must be one of ${providerCodes.join(', ')}`);
  }
  const label = input.label.trim();
  if (label.length < 1 || [...label].length > CREDENTIAL_LIMITS.labelMaxLength || /\p{Cc}/u.test(label)) {
    throw new InvalidArgumentError('label', `must be 1–${CREDENTIAL_LIMITS.labelMaxLength} characters without control characters`);
  }
  // Never echoed: the message names the rule, not the value.
  const apiKey = input.apiKey.trim();
  if (apiKey.length < CREDENTIAL_LIMITS.keyMinLength || apiKey.length > CREDENTIAL_LIMITS.keyMaxLength || !KEY_PATTERN.test(apiKey)) {
    throw new InvalidArgumentError(
      'api_key',
      `must be ${CREDENTIAL_LIMITS.keyMinLength}–${CREDENTIAL_LIMITS.keyMaxLength} printable characters without spaces`,
    );
  }
  return { providerCode: input.providerCode, label, apiKey };
}

/** What the owner sees of a key: its last four characters. */
export function keyHintOf(apiKey: string): string {
  return apiKey.slice(-4);
}

/** How a job's failure names the user's key to its owner: label and hint, never the key. */
export function describeCredential(label: string, keyHint: string): string {
  return `"${label}" (…${keyHint})`;
}
