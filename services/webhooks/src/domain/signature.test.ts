import { describe, expect, it } from 'vitest';
import { newEndpointSecret, signWebhook, signingKeyOf } from './signature.js';

describe('signature - Standard Webhooks v1', () => {
  it('matches the reference library test vector', () => {
    // From the standard-webhooks reference libraries' tests.
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const body = '{"test": 2432232314}';
    expect(signWebhook(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, body)).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('makes secrets of 32 random bytes behind whsec_', () => {
    const secret = newEndpointSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(signingKeyOf(secret)).toHaveLength(32);
    expect(newEndpointSecret()).not.toBe(secret);
  });
});
