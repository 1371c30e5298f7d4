import { InvalidArgumentError } from '@atelier/errors';
import { MAX_WEBHOOK_URL_LENGTH, requireNoNul } from '@atelier/validation';
import { WEBHOOK_EVENT_TYPES } from './event-types.js';

/** Endpoints one user may have; then RESOURCE_EXHAUSTED WEBHOOK_ENDPOINT_LIMIT. */
export const DEFAULT_ENDPOINTS_PER_USER = 10;

/**
 * An endpoint URL: absolute, https — or http for an allowlisted host (a receiver in the same
 * trusted network, a test) — without credentials or fragment, at most MAX_WEBHOOK_URL_LENGTH characters. Whether
 * its host may be called is target-check.ts's question.
 */
export function requireEndpointUrl(raw: string, allowedHosts: ReadonlySet<string>): URL {
  const value = requireNoNul(raw.trim(), 'url');
  if (value === '') throw new InvalidArgumentError('url', 'is required');
  if (value.length > MAX_WEBHOOK_URL_LENGTH) throw new InvalidArgumentError('url', `must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError('url', 'must be an absolute URL, e.g. https://hooks.example.com/atelier');
  }
  const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && allowedHosts.has(host))) {
    throw new InvalidArgumentError('url', 'must be https (http only for a host in WEBHOOK_ALLOWED_HOSTS)');
  }
  if (url.username || url.password) throw new InvalidArgumentError('url', 'must not carry credentials; the signature authenticates us');
  if (url.hash) throw new InvalidArgumentError('url', 'must not have a fragment');
  return url;
}

/** The event types filter: known types, each once; empty means every type. */
export function requireEventTypes(types: readonly string[]): string[] {
  const unique = [...new Set(types.map((type) => type.trim()))];
  const unknown = unique.filter((type) => !WEBHOOK_EVENT_TYPES.includes(type));
  if (unknown.length > 0) {
    throw new InvalidArgumentError('event_types', `unknown event type ${unknown.join(', ')}; known: ${WEBHOOK_EVENT_TYPES.join(', ')}`);
  }
  return unique;
}
