import { describe, expect, it } from 'vitest';
import { canonicalJson } from './index.js';

describe('canonical json - one spelling per value', () => {
  it('sorts object keys at every depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"y":2,"z":1}]},"b":1}');
    expect(canonicalJson({ b: 1, a: [{ d: null, c: 'x' }] })).toBe('{"a":[{"c":"x","d":null}],"b":1}');
    expect(canonicalJson([3, 1, 2])).toBe('[3,1,2]');
  });

  it('leaves undefined members out and writes a missing value as null', () => {
    expect(canonicalJson({ a: undefined, b: 'x' })).toBe('{"b":"x"}');
    expect(canonicalJson(undefined)).toBe('null');
    expect(canonicalJson(null)).toBe('null');
  });

  it('escapes keys and strings as JSON does', () => {
    expect(canonicalJson({ 'a"b': 'line\nbreak' })).toBe('{"a\\"b":"line\\nbreak"}');
  });
});
