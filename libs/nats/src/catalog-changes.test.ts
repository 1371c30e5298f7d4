import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { natsTestPrefix, testNatsUrl } from '@atelier/testing';
import { catalogChangesSubject, connectNats, parseCatalogChange, publishCatalogChange, type NatsConnection } from './index.js';

let nc: NatsConnection;
beforeAll(async () => {
  nc = await connectNats({ servers: testNatsUrl(), name: 'catalog-changes-test' });
});
afterAll(async () => {
  await nc.close();
});

describe('catalog changes - subject and notice', () => {
  it('derives the subject from the prefix like the other subjects', () => {
    expect(catalogChangesSubject('ATELIER')).toBe('atelier.catalog.events.changed');
    expect(() => catalogChangesSubject('atelier')).toThrow(/prefix must match/);
  });

  it('delivers a published change to a subscriber as the same kind and id', async () => {
    const subject = catalogChangesSubject(natsTestPrefix());
    const heard: unknown[] = [];
    const subscription = nc.subscribe(subject, { callback: (_error, message) => void heard.push(parseCatalogChange(message.data)) });
    await nc.flush();
    expect(publishCatalogChange(nc, subject, { kind: 'model', id: 'm-1' })).toBe(true);
    expect(publishCatalogChange(nc, subject, { kind: 'style', id: 's-1' })).toBe(true);
    await expect
      .poll(() => heard)
      .toEqual([
        { kind: 'model', id: 'm-1' },
        { kind: 'style', id: 's-1' },
      ]);
    subscription.unsubscribe();
  });

  it('ignores what is not a notice, and publishes nothing without a connection', () => {
    const bytes = (text: string) => new TextEncoder().encode(text);
    expect(parseCatalogChange(bytes('not json'))).toBeUndefined();
    expect(parseCatalogChange(bytes('{"kind":"pet","id":"x"}'))).toBeUndefined();
    expect(parseCatalogChange(bytes('{"kind":"model","id":""}'))).toBeUndefined();
    expect(publishCatalogChange(undefined, 'x', { kind: 'model', id: 'm' })).toBe(false);
  });
});
