import { MAX_IMAGE_SIDE_PX, MIN_IMAGE_SIDE_PX } from '@atelier/images';
import { MAX_EFFECTIVE_PROMPT_LENGTH, MAX_PROVIDER_MODEL_LENGTH } from '@atelier/validation';
import { invalidRequest } from './api-error.js';

// The vendor's own bound on its Idempotency-Key header (Atelier's keys are shorter).
const MAX_IDEMPOTENCY_KEY_LENGTH = 200;
// The longest model name a catalog entry may give the vendor.
const MAX_MODEL_LENGTH = MAX_PROVIDER_MODEL_LENGTH;
// A user's prompt with a style's preset after ", ": the longest text Atelier's jobs send.
const MAX_TEXT_LENGTH = MAX_EFFECTIVE_PROMPT_LENGTH;
const MAX_URL_LENGTH = 4096;

/** A validated `POST /v1/predictions` body (unknown fields dropped). */
export interface SubmitRequest {
  model: string;
  version: string | null;
  input: PredictionInput;
}

export interface PredictionInput {
  imageUrl: string;
  style?: string;
  prompt?: string;
  negativePrompt?: string;
  width?: number;
  height?: number;
  strength?: number;
  scale?: 2 | 4;
  seed?: number;
}

type Fields = Record<string, unknown>;

function isObject(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Optional fields: absent and null both mean "not given", as vendors' clients send either. */
function given(fields: Fields, name: string): unknown {
  const value = fields[name];
  return value === null ? undefined : value;
}

function optionalText(fields: Fields, name: string, path: string, max: number): string | undefined {
  const value = given(fields, name);
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length === 0 || value.length > max) {
    throw invalidRequest(path, `must be a string of 1–${max} characters`);
  }
  return value;
}

function requiredText(fields: Fields, name: string, path: string, max: number): string {
  const value = optionalText(fields, name, path, max);
  if (value === undefined) throw invalidRequest(path, 'is required');
  return value;
}

function optionalInteger(fields: Fields, name: string, path: string, min: number, max: number): number | undefined {
  const value = given(fields, name);
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalidRequest(path, `must be an integer between ${min} and ${max}`);
  }
  return value;
}

function httpUrl(fields: Fields, name: string, path: string): string {
  const value = given(fields, name);
  if (value === undefined) throw invalidRequest(path, 'is required (an http(s) URL of the input image)');
  let parsed: URL | undefined;
  try {
    parsed = typeof value === 'string' && value.length <= MAX_URL_LENGTH ? new URL(value) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) throw invalidRequest(path, 'must be an http(s) URL');
  return value as string;
}

function optionalFraction(fields: Fields, name: string, path: string): number | undefined {
  const value = given(fields, name);
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) {
    throw invalidRequest(path, 'must be a number between 0 and 1');
  }
  return value;
}

function optionalScale(fields: Fields, name: string, path: string): 2 | 4 | undefined {
  const value = given(fields, name);
  if (value === undefined || value === 2 || value === 4) return value;
  throw invalidRequest(path, 'must be 2 or 4');
}

// Fields are checked in the order a reader scans the contract, so the first problem reported is
// the most fundamental one (a missing image_url before a bad seed).
function parseInput(value: unknown): PredictionInput {
  if (!isObject(value)) throw invalidRequest('input', 'must be an object with at least image_url');
  return {
    imageUrl: httpUrl(value, 'image_url', 'input.image_url'),
    style: optionalText(value, 'style', 'input.style', MAX_MODEL_LENGTH),
    prompt: optionalText(value, 'prompt', 'input.prompt', MAX_TEXT_LENGTH),
    negativePrompt: optionalText(value, 'negative_prompt', 'input.negative_prompt', MAX_TEXT_LENGTH),
    width: optionalInteger(value, 'width', 'input.width', MIN_IMAGE_SIDE_PX, MAX_IMAGE_SIDE_PX),
    height: optionalInteger(value, 'height', 'input.height', MIN_IMAGE_SIDE_PX, MAX_IMAGE_SIDE_PX),
    strength: optionalFraction(value, 'strength', 'input.strength'),
    scale: optionalScale(value, 'scale', 'input.scale'),
    seed: optionalInteger(value, 'seed', 'input.seed', Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER),
  };
}

/** Validates a submit body; the first bad field is a 400 `invalid_request` that names it. */
export function parseSubmitRequest(body: unknown): SubmitRequest {
  if (!isObject(body)) throw invalidRequest('body', 'must be a JSON object with model and input');
  return {
    model: requiredText(body, 'model', 'model', MAX_MODEL_LENGTH),
    version: optionalText(body, 'version', 'version', MAX_MODEL_LENGTH) ?? null,
    input: parseInput(body.input),
  };
}

/**
 * The Idempotency-Key header: absent is fine (every POST is then new work), but present must be
 * 1–200 characters; a repeated header is refused rather than guessed at.
 */
export function parseIdempotencyKey(header: string | string[] | undefined): string | null {
  if (header === undefined) return null;
  if (typeof header !== 'string' || header.length === 0 || header.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw invalidRequest('Idempotency-Key', `must be a single header value of 1–${MAX_IDEMPOTENCY_KEY_LENGTH} characters`);
  }
  return header;
}
