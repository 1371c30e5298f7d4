import { describe, expect, it } from 'vitest';
import { ApiError } from './api-error.js';
import { parseIdempotencyKey, parseSubmitRequest } from './request-validation.js';

const valid = { model: 'sim-stylize', input: { image_url: 'https://cdn.example.com/cat.png' } };

function refusal(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('request validation - submit body', () => {
  it('keeps the known fields, maps them to camelCase and ignores unknown ones', () => {
    const request = parseSubmitRequest({
      ...valid,
      version: 'v7',
      webhook: 'https://ignored.example.com',
      input: {
        image_url: 'http://127.0.0.1:9/in.png',
        style: 'comic',
        prompt: 'a dog',
        negative_prompt: 'blur',
        width: 64,
        height: 8192,
        strength: 0.4,
        scale: 4,
        seed: -3,
        extra: true,
      },
    });
    expect(request).toEqual({
      model: 'sim-stylize',
      version: 'v7',
      input: {
        imageUrl: 'http://127.0.0.1:9/in.png',
        style: 'comic',
        prompt: 'a dog',
        negativePrompt: 'blur',
        width: 64,
        height: 8192,
        strength: 0.4,
        scale: 4,
        seed: -3,
      },
    });
  });

  it('treats null optional fields as absent', () => {
    const request = parseSubmitRequest({ ...valid, version: null, input: { ...valid.input, style: null, seed: null } });
    expect(request.version).toBeNull();
    expect(request.input.style).toBeUndefined();
  });

  it.each([
    [null, 'body: '],
    [[], 'body: '],
    [{ input: valid.input }, 'model: is required'],
    [{ ...valid, model: '' }, 'model: must be a string of 1–128 characters'],
    [{ ...valid, model: 'm'.repeat(129) }, 'model: must be a string'],
    [{ ...valid, version: 7 }, 'version: must be a string'],
    [{ model: 'm' }, 'input: must be an object'],
    [{ model: 'm', input: 'cat.png' }, 'input: must be an object'],
    [{ model: 'm', input: {} }, 'input.image_url: is required'],
    [{ model: 'm', input: { image_url: 'ftp://x/y.png' } }, 'input.image_url: must be an http(s) URL'],
    [{ model: 'm', input: { image_url: 'not a url' } }, 'input.image_url: must be an http(s) URL'],
    [{ model: 'm', input: { ...valid.input, style: 3 } }, 'input.style: must be a string'],
    [{ model: 'm', input: { ...valid.input, prompt: '' } }, 'input.prompt: must be a string'],
    [{ model: 'm', input: { ...valid.input, negative_prompt: [] } }, 'input.negative_prompt: must be a string'],
    [{ model: 'm', input: { ...valid.input, width: 63 } }, 'input.width: must be an integer between 64 and 8192'],
    [{ model: 'm', input: { ...valid.input, height: 100.5 } }, 'input.height: must be an integer'],
    [{ model: 'm', input: { ...valid.input, strength: 1.01 } }, 'input.strength: must be a number between 0 and 1'],
    [{ model: 'm', input: { ...valid.input, strength: '0.5' } }, 'input.strength: must be a number'],
    [{ model: 'm', input: { ...valid.input, scale: 3 } }, 'input.scale: must be 2 or 4'],
    [{ model: 'm', input: { ...valid.input, seed: 1.5 } }, 'input.seed: must be an integer'],
  ])('refuses %j with a 400 naming the field', (body, message) => {
    const error = refusal(() => parseSubmitRequest(body));
    expect(error.statusCode).toBe(400);
    expect(error.code).toBe('invalid_request');
    expect(error.message.startsWith(message)).toBe(true);
  });
});

describe('request validation - Idempotency-Key', () => {
  it('accepts 1–200 characters and absence', () => {
    expect(parseIdempotencyKey(undefined)).toBeNull();
    expect(parseIdempotencyKey('job-1:2')).toBe('job-1:2');
    expect(parseIdempotencyKey('k'.repeat(200))).toHaveLength(200);
  });

  it('refuses an empty, too long or repeated header', () => {
    for (const header of ['', 'k'.repeat(201), ['a', 'b']]) {
      const error = refusal(() => parseIdempotencyKey(header));
      expect(error.statusCode).toBe(400);
      expect(error.message).toMatch(/^Idempotency-Key: /);
    }
  });
});
