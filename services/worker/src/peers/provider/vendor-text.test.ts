import { describe, expect, it } from 'vitest';
import { redactVendorText, VENDOR_TEXT_MAX_CHARS } from './vendor-text.js';

describe('vendor text - stored and logged only truncated and redacted', () => {
  it('cuts long bodies to the limit and says how much was dropped', () => {
    const text = redactVendorText('e'.repeat(30) + ' ' + 'word '.repeat(400));
    expect(text.length).toBeLessThan(VENDOR_TEXT_MAX_CHARS + 40);
    expect(text).toMatch(/… \(\d+ more characters\)$/);
    expect(redactVendorText('short and harmless')).toBe('short and harmless');
  });

  it('drops the query of URLs (presigned URLs) but keeps where they pointed', () => {
    const body =
      'could not fetch image_url https://bucket.s3.amazonaws.com/assets/abc?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=deadbeef01 (403)';
    const text = redactVendorText(body);
    expect(text).toContain('https://bucket.s3.amazonaws.com/assets/abc?[redacted]');
    expect(text).not.toContain('deadbeef01');
    expect(text).not.toContain('X-Amz-Algorithm=AWS4');
  });

  it('replaces signatures, tokens, keys and long opaque strings wherever they appear', () => {
    const text = redactVendorText(
      '{"error":"bad auth","token":"tok_123456","api_key":"k-9876"} Authorization: Bearer abc.def.ghi signature=s1g ' +
        'id 0123456789abcdef0123456789abcdef0123456789abcdef',
    );
    for (const secret of ['tok_123456', 'k-9876', 'abc.def.ghi', 's1g', '0123456789abcdef0123456789abcdef0123456789abcdef']) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain('bad auth');
  });

  it("replaces the job's prompts when the vendor echoes them", () => {
    const text = redactVendorText('prompt "my dog Rex at 12 Elm Street" violates policy', ['my dog Rex at 12 Elm Street', undefined]);
    expect(text).toBe('prompt "[prompt]" violates policy');
  });

  it('redacts before cutting, so half a secret is never kept', () => {
    const text = redactVendorText(`${'x '.repeat(245)}https://h/p?sig=${'a'.repeat(50)}`);
    expect(text).not.toMatch(/a{5}/);
  });
});
