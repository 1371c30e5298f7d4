import { describe, expect, it } from 'vitest';
import { decodeAccountDeleted, encodeAccountDeleted } from './account-deleted-event.js';

const json = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

/**
 * The body jobs' outbox writes for account.deleted (services/jobs/src/db/account-deletion-sql.ts:
 * jsonb_build_object with the time as rfc3339Sql renders it), as the relay publishes it.
 */
const FROM_JOBS_OUTBOX = {
  deletionId: '0190f3c2-7b7e-7c1a-9d2e-1f0a5b6c7d8e',
  userId: 'auth0|user-42',
  requestedAt: '2026-12-03T18:04:05.123Z',
};

describe('AccountDeletedEvent on the wire - proto3 JSON', () => {
  it('decodes what jobs’ outbox publishes', () => {
    expect(decodeAccountDeleted(json(FROM_JOBS_OUTBOX))).toEqual({
      deletionId: FROM_JOBS_OUTBOX.deletionId,
      userId: FROM_JOBS_OUTBOX.userId,
      requestedAt: new Date(FROM_JOBS_OUTBOX.requestedAt),
    });
  });

  it('encodes, with the generated codec, the body jobs’ outbox publishes', () => {
    const event = { ...FROM_JOBS_OUTBOX, requestedAt: new Date(FROM_JOBS_OUTBOX.requestedAt) };
    expect(JSON.parse(new TextDecoder().decode(encodeAccountDeleted(event)))).toEqual(FROM_JOBS_OUTBOX);
    expect(decodeAccountDeleted(encodeAccountDeleted(event))).toEqual(event);
  });

  it('takes the proto field names too, as proto3 JSON parsers must', () => {
    const { deletionId, userId, requestedAt } = FROM_JOBS_OUTBOX;
    expect(decodeAccountDeleted(json({ deletion_id: deletionId, user_id: userId, requested_at: requestedAt }))?.userId).toBe(userId);
  });

  it.each([
    ['not JSON', new TextEncoder().encode('{"deletionId":')],
    ['protobuf binary', new Uint8Array([10, 3, 97, 98, 99])],
    ['JSON null', json(null)],
    ['a JSON string', json('account.deleted')],
    ['an array', json([FROM_JOBS_OUTBOX])],
    ['no deletion id', json({ ...FROM_JOBS_OUTBOX, deletionId: undefined })],
    ['a deletion id that is no UUID', json({ ...FROM_JOBS_OUTBOX, deletionId: 'abc' })],
    ['no user id', json({ ...FROM_JOBS_OUTBOX, userId: '' })],
    ['a user id no user can have', json({ ...FROM_JOBS_OUTBOX, userId: 'a b' })],
    ['a user id longer than any', json({ ...FROM_JOBS_OUTBOX, userId: 'u'.repeat(129) })],
    ['no time', json({ ...FROM_JOBS_OUTBOX, requestedAt: undefined })],
    ['a time that is none', json({ ...FROM_JOBS_OUTBOX, requestedAt: 'yesterday' })],
  ])('refuses a body with %s (it is dropped, not retried)', (_, body) => {
    expect(decodeAccountDeleted(body)).toBeUndefined();
  });
});
