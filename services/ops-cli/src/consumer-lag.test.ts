import { describe, expect, it } from 'vitest';
import { redactNatsUrl } from './consumer-lag.js';

// Reading real consumers is covered by status-command.integration.test.ts against a real NATS.
describe('consumer lag - messages', () => {
  it('never prints NATS credentials', () => {
    expect(redactNatsUrl('nats://ops:s3cret@nats-1:4222, tls://token@nats-2:4222,nats-3:4222')).toBe(
      'nats://***@nats-1:4222,tls://***@nats-2:4222,nats-3:4222',
    );
  });
});
