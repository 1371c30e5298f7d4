/**
 * Where and how much of a vendor's output the worker fetches. The output URL comes from the
 * vendor's answer, so it is untrusted: fetched only from configured hosts and never past a size.
 */
export interface OutputLimits {
  /** `host` (any port) or `host:port` entries, lower case; see PROVIDER_OUTPUT_HOSTS. */
  hosts: readonly string[];
  maxBytes: number;
}

/** PROVIDER_OUTPUT_HOSTS as a list; unset or empty: the host of PROVIDER_URL. */
export function outputHostsFrom(setting: string | undefined, providerUrl: string): string[] {
  const listed = (setting ?? '')
    .split(',')
    .map((entry) => entry.trim().toLowerCase())
    .filter(Boolean);
  return listed.length > 0 ? listed : [new URL(providerUrl).host.toLowerCase()];
}

/** Whether `url` is http(s) on one of the allowed hosts. */
export function isAllowedOutputUrl(url: URL, hosts: readonly string[]): boolean {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (url.username || url.password) return false;
  const host = url.host.toLowerCase();
  const hostname = url.hostname.toLowerCase();
  // An entry without a port allows any port of its host ('[::1]' has colons but no port: exact match).
  return hosts.some((entry) => entry === host || (!entry.includes(':') && entry === hostname));
}

export class OutputTooLargeError extends Error {
  override name = 'OutputTooLargeError';
  constructor(readonly maxBytes: number) {
    super(`the output is larger than ${maxBytes} bytes`);
  }
}

/**
 * The body, read as it streams and given up as soon as it passes maxBytes (a Content-Length
 * above it is refused before reading anything): a vendor can never make the worker hold more.
 */
export async function readCappedBody(response: Response, maxBytes: number): Promise<Buffer> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw new OutputTooLargeError(maxBytes);
  }
  if (!response.body) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let total = 0;
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) throw new OutputTooLargeError(maxBytes);
      chunks.push(Buffer.from(value));
    }
  } catch (error) {
    await reader.cancel().catch(() => {});
    throw error;
  } finally {
    reader.releaseLock();
  }
  return Buffer.concat(chunks, total);
}
