import { describe, expect, it } from 'vitest';
import { isAllowedOutputUrl, outputHostsFrom, OutputTooLargeError, readCappedBody } from './output-limits.js';

function streamed(chunks: number[], headers: Record<string, string> = {}): { response: Response; pulled: () => number } {
  let pulled = 0;
  let index = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (index >= chunks.length) return controller.close();
      pulled += chunks[index]!;
      controller.enqueue(new Uint8Array(chunks[index++]!));
    },
  });
  return { response: new Response(body, { headers }), pulled: () => pulled };
}

describe('vendor output limits - hosts', () => {
  it('defaults to the host of PROVIDER_URL, else the configured list', () => {
    expect(outputHostsFrom(undefined, 'http://127.0.0.1:8090')).toEqual(['127.0.0.1:8090']);
    expect(outputHostsFrom(' ', 'https://api.vendor.example')).toEqual(['api.vendor.example']);
    expect(outputHostsFrom('CDN.vendor.example, files.vendor.example:8443', 'https://api.vendor.example')).toEqual([
      'cdn.vendor.example',
      'files.vendor.example:8443',
    ]);
  });

  it('fetches only http(s) from an allowed host (any port when the entry names none)', () => {
    const hosts = ['cdn.vendor.example', '127.0.0.1:8090'];
    expect(isAllowedOutputUrl(new URL('https://cdn.vendor.example/out/1.png'), hosts)).toBe(true);
    expect(isAllowedOutputUrl(new URL('https://CDN.vendor.example:444/out/1.png'), hosts)).toBe(true);
    expect(isAllowedOutputUrl(new URL('http://127.0.0.1:8090/v1/predictions/p/output'), hosts)).toBe(true);
    expect(isAllowedOutputUrl(new URL('http://127.0.0.1:5432/'), hosts)).toBe(false);
    expect(isAllowedOutputUrl(new URL('http://169.254.169.254/latest/meta-data/'), hosts)).toBe(false);
    expect(isAllowedOutputUrl(new URL('https://cdn.vendor.example.evil.example/x'), hosts)).toBe(false);
    expect(isAllowedOutputUrl(new URL('https://user:pw@cdn.vendor.example/x'), hosts)).toBe(false);
    expect(isAllowedOutputUrl(new URL('file:///etc/passwd'), hosts)).toBe(false);
  });
});

describe('vendor output limits - size, enforced while streaming', () => {
  it('reads a body within the cap whole', async () => {
    const { response } = streamed([1000, 1000, 24]);
    expect((await readCappedBody(response, 2024)).length).toBe(2024);
  });

  it('stops reading as soon as the cap is passed, without a Content-Length', async () => {
    const { response, pulled } = streamed(Array(100).fill(64 * 1024));
    await expect(readCappedBody(response, 200 * 1024)).rejects.toBeInstanceOf(OutputTooLargeError);
    expect(pulled()).toBeLessThanOrEqual(5 * 64 * 1024);
  });

  it('refuses a declared Content-Length above the cap before reading', async () => {
    const { response, pulled } = streamed([10, 10], { 'content-length': '999999' });
    await expect(readCappedBody(response, 1000)).rejects.toBeInstanceOf(OutputTooLargeError);
    expect(pulled()).toBeLessThanOrEqual(10);
  });
});
