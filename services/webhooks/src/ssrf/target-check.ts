import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { FailedPreconditionError } from '@atelier/errors';
import { nonPublicReason } from './address-policy.js';

/** Where a webhook goes, once checked: the URL and the one address the connection is pinned to. */
export interface CheckedTarget {
  readonly url: URL;
  readonly address: string;
  readonly family: 4 | 6;
}

export type ResolveAll = (hostname: string) => Promise<{ address: string; family: number }[]>;

const resolveAll: ResolveAll = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** WEBHOOK_ALLOWED_HOSTS as a set of lower-case host names (IPv6 literals without brackets). */
export function parseAllowedHosts(raw: string): ReadonlySet<string> {
  return new Set(
    raw
      .split(',')
      .map((host) =>
        host
          .trim()
          .toLowerCase()
          .replace(/^\[|\]$/g, ''),
      )
      .filter((host) => host !== ''),
  );
}

/** The URL's host as the allowlist spells it. */
export const hostOf = (url: URL): string => url.hostname.toLowerCase().replace(/^\[|\]$/g, '');

function notAllowed(url: URL, detail: string): FailedPreconditionError {
  return new FailedPreconditionError(
    'WEBHOOK_URL_NOT_ALLOWED',
    `url: ${url.hostname} ${detail}; webhooks go to public addresses only (an operator may allowlist the host in WEBHOOK_ALLOWED_HOSTS)`,
    { field: 'url' },
  );
}

/**
 * Resolves the URL's host and refuses it when ANY of its addresses is not public (address-policy.ts),
 * unless the host is allowlisted: a name with one public and one private address could otherwise
 * be sent to the private one. Run at registration and again before every attempt; the attempt
 * then connects to the address returned here, so a DNS answer that changes between the check and
 * the connection (rebinding) cannot move it.
 */
export async function checkTarget(url: URL, allowedHosts: ReadonlySet<string>, resolve: ResolveAll = resolveAll): Promise<CheckedTarget> {
  const host = hostOf(url);
  let addresses: { address: string; family: number }[];
  if (isIP(host)) addresses = [{ address: host, family: isIP(host) }];
  else {
    try {
      addresses = await resolve(host);
    } catch (error) {
      throw new FailedPreconditionError('WEBHOOK_URL_UNRESOLVABLE', `url: ${url.hostname} does not resolve (${(error as Error).message})`, {
        field: 'url',
        cause: error,
      });
    }
  }
  if (addresses.length === 0) throw notAllowed(url, 'has no address');
  if (!allowedHosts.has(host)) {
    for (const { address } of addresses) {
      const why = nonPublicReason(address);
      if (why) throw notAllowed(url, `resolves to ${address}, a ${why} address`);
    }
  }
  const first = addresses[0]!;
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}
