import { describe, expect, it } from 'vitest';
import { requireEndpointUrl, requireEventTypes } from './endpoint-rules.js';
import { WEBHOOK_EVENT_TYPES } from './event-types.js';

describe('endpoint rules - what may be registered', () => {
  const allowed = new Set(['127.0.0.1']);

  it('takes https URLs, and http only for allowlisted hosts', () => {
    expect(requireEndpointUrl(' https://hooks.example.com/a?b=1 ', new Set()).href).toBe('https://hooks.example.com/a?b=1');
    expect(requireEndpointUrl('http://127.0.0.1:8080/in', allowed).port).toBe('8080');
    expect(() => requireEndpointUrl('http://hooks.example.com/', allowed)).toThrow(/must be https/);
    expect(() => requireEndpointUrl('ftp://hooks.example.com/', allowed)).toThrow(/must be https/);
  });

  it('refuses credentials, fragments, relative and overlong URLs', () => {
    expect(() => requireEndpointUrl('https://u:p@hooks.example.com/', allowed)).toThrow(/credentials/);
    expect(() => requireEndpointUrl('https://hooks.example.com/#x', allowed)).toThrow(/fragment/);
    expect(() => requireEndpointUrl('/hook', allowed)).toThrow(/absolute/);
    expect(() => requireEndpointUrl(`https://hooks.example.com/${'a'.repeat(2048)}`, allowed)).toThrow(/2048/);
  });

  it('knows the job lifecycle event types', () => {
    expect(WEBHOOK_EVENT_TYPES).toEqual(['job.succeeded', 'job.failed', 'job.cancelled']);
    expect(requireEventTypes(['job.failed', 'job.failed'])).toEqual(['job.failed']);
    expect(() => requireEventTypes(['job.created'])).toThrow(/unknown event type job.created/);
  });
});
