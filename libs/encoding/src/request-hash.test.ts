import { describe, expect, it } from 'vitest';
import { requestHash } from './index.js';

describe('request hash - SHA-256 of the canonical command', () => {
  const command = { jobType: 'image.stylize', prompt: 'a cat', parameters: { strength: 0.5, seed: 7 } };

  it('is 32 bytes and does not depend on key order', () => {
    expect(requestHash(command)).toHaveLength(32);
    expect(
      requestHash({ parameters: { seed: 7, strength: 0.5 }, prompt: 'a cat', jobType: 'image.stylize' }).equals(requestHash(command)),
    ).toBe(true);
  });

  it('changes with any value', () => {
    expect(requestHash({ ...command, prompt: 'a dog' }).equals(requestHash(command))).toBe(false);
    expect(requestHash({ ...command, parameters: { strength: 0.6, seed: 7 } }).equals(requestHash(command))).toBe(false);
  });

  it('stays what it was: hashes stored with idempotency keys must keep matching', () => {
    expect(requestHash({ kind: 'draft-from-job', jobId: '019a0000-0000-7000-8000-0000000000aa' }).toString('hex')).toBe(
      '16b780171c7331475ec71afae8c8a144826289f4a7419e3c13a69d5bc3522fca',
    );
  });
});
