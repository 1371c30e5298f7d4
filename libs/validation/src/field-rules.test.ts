import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '@atelier/errors';
import { requireIdempotencyKey, requireIntInRange, requireNoNul, requireText, requireUserId, requireUuid } from './index.js';

function refusal(work: () => unknown): InvalidArgumentError {
  try {
    work();
  } catch (error) {
    if (error instanceof InvalidArgumentError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('validation - field rules', () => {
  it('normalises UUIDs and names the field of a bad one', () => {
    expect(requireUuid('019A0000-0000-7000-8000-000000000001', 'asset_id')).toBe('019a0000-0000-7000-8000-000000000001');
    expect(refusal(() => requireUuid('nope', 'asset_id'))).toMatchObject({ field: 'asset_id', message: 'asset_id: must be a UUID' });
    expect(refusal(() => requireUuid('', 'asset_id')).message).toBe('asset_id: is required');
  });

  it('accepts identity-provider subjects as user ids', () => {
    expect(requireUserId('auth0|5f7c8ec7c33c6c004bbafe82', 'owner_user_id')).toBe('auth0|5f7c8ec7c33c6c004bbafe82');
    expect(requireUserId('019a0000-0000-7000-8000-000000000001', 'owner_user_id')).toBeTruthy();
    expect(refusal(() => requireUserId('has space', 'owner_user_id')).field).toBe('owner_user_id');
    expect(refusal(() => requireUserId('x'.repeat(129), 'owner_user_id')).field).toBe('owner_user_id');
    expect(refusal(() => requireUserId('', 'owner_user_id')).message).toBe('owner_user_id: is required');
  });

  it('trims idempotency keys and bounds them to 1–128 characters', () => {
    expect(requireIdempotencyKey('  key-1  ')).toBe('key-1');
    expect(requireIdempotencyKey('k'.repeat(128))).toHaveLength(128);
    expect(refusal(() => requireIdempotencyKey('   ')).field).toBe('idempotency_key');
    expect(refusal(() => requireIdempotencyKey('k'.repeat(129))).field).toBe('idempotency_key');
  });

  it('refuses the NUL character in text and keys by field, before any SQL', () => {
    expect(refusal(() => requireText('a\u0000b', 'title', 50)).message).toBe('title: must not contain the NUL character (U+0000)');
    expect(refusal(() => requireText('\u0000', 'content', 50, { allowEmpty: true })).field).toBe('content');
    expect(refusal(() => requireIdempotencyKey('key\u0000')).field).toBe('idempotency_key');
    expect(refusal(() => requireNoNul('\u0000', 'prompt')).field).toBe('prompt');
    expect(requireNoNul('naïve – ünïcödé ✓', 'prompt')).toBe('naïve – ünïcödé ✓');
  });

  it('bounds text and integers', () => {
    expect(requireText('  hi ', 'title', 5)).toBe('hi');
    expect(requireText('', 'subtitle', 5, { allowEmpty: true })).toBe('');
    expect(refusal(() => requireText('toolong', 'title', 5)).message).toBe('title: must be at most 5 characters');
    expect(requireIntInRange(64, 'width', 64, 8192)).toBe(64);
    expect(refusal(() => requireIntInRange(63, 'width', 64, 8192)).field).toBe('width');
    expect(refusal(() => requireIntInRange(1.5, 'width', 1, 10)).field).toBe('width');
  });
});
