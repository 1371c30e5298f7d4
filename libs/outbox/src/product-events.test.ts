import { createHmac } from 'node:crypto';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadConfig, type ConfigError } from '@atelier/config';
import { ProductEvents, UserRefKey, productEventsConfigSpec } from './product-events.js';

const SECRET = 'a-product-events-key-for-tests-only-0123456789';

describe('product events - user_ref', () => {
  it('is the hex HMAC-SHA256 of the user id under the key: stable per user, different per user and per key', () => {
    const key = new UserRefKey(SECRET);
    expect(key.refOf('user-1')).toBe(createHmac('sha256', SECRET).update('user-1').digest('hex'));
    expect(key.refOf('user-1')).toBe(key.refOf('user-1'));
    expect(key.refOf('user-2')).not.toBe(key.refOf('user-1'));
    expect(new UserRefKey(`${SECRET}!`).refOf('user-1')).not.toBe(key.refOf('user-1'));
  });

  it('never shows the key: printed, inspected or serialised it is redacted', () => {
    const key = new UserRefKey(SECRET);
    for (const shown of [String(key), `${key}`, JSON.stringify({ key }), inspect(key), inspect({ nested: { key } })]) {
      expect(shown).not.toContain(SECRET);
      expect(shown).toContain('redacted');
    }
  });

  it('PRODUCT_EVENTS_USER_KEY is required and at least 32 characters, and a refusal does not echo it', () => {
    expect(loadConfig(productEventsConfigSpec, { PRODUCT_EVENTS_USER_KEY: SECRET }).PRODUCT_EVENTS_USER_KEY).toBe(SECRET);
    const refusal = (env: Record<string, string>) => {
      try {
        loadConfig(productEventsConfigSpec, env);
      } catch (error) {
        return error as ConfigError;
      }
      throw new Error('accepted');
    };
    expect(refusal({}).problems).toEqual([
      { variable: 'PRODUCT_EVENTS_USER_KEY', problem: expect.stringContaining('at least 32 characters') },
    ]);
    const short = refusal({ PRODUCT_EVENTS_USER_KEY: 'too-short-a-secret' });
    expect(short.message).toContain('PRODUCT_EVENTS_USER_KEY');
    expect(short.message).not.toContain('too-short-a-secret');
  });
});

describe('product events - the message', () => {
  const events = new ProductEvents({ key: new UserRefKey(SECRET), subjectOf: (name) => `atelier.product.events.${name}` });
  const occurredAt = new Date('2026-03-04T05:06:07.089Z');

  it('carries the event id, name, time, user_ref and the props that have a value; the user id stays behind', () => {
    const row = events.outboxEvent({
      name: 'creation_upload_completed',
      aggregateId: '0190aaaa-0000-7000-8000-000000000001',
      userId: 'alice@example.com',
      occurredAt,
      props: { asset_id: '0190aaaa-0000-7000-8000-000000000001', width: 512, has_pet: false, missing: null, absent: undefined },
    });
    expect(row).toEqual({
      aggregateId: '0190aaaa-0000-7000-8000-000000000001',
      eventType: 'creation_upload_completed',
      subject: 'atelier.product.events.creation_upload_completed',
      dedupeKey: 'creation_upload_completed:0190aaaa-0000-7000-8000-000000000001',
      payload: {
        eventId: 'creation_upload_completed:0190aaaa-0000-7000-8000-000000000001',
        eventName: 'creation_upload_completed',
        occurredAt: '2026-03-04T05:06:07.089Z',
        userRef: new UserRefKey(SECRET).refOf('alice@example.com'),
        props: { asset_id: '0190aaaa-0000-7000-8000-000000000001', width: 512, has_pet: false },
      },
    });
    expect(JSON.stringify(row)).not.toContain('alice');
  });
});
