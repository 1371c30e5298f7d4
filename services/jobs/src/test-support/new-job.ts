import { randomBytes } from 'node:crypto';
import { uuidv7 } from '@atelier/db';
import type { NewJob } from '../db/transitions/create-sql.js';

/** A canary as CreateJob would hand it to the create transition, for tests that call transitions directly. */
export function newCanaryJob(overrides: Partial<NewJob> = {}): NewJob {
  return {
    id: uuidv7(),
    userId: `test-user-${randomBytes(4).toString('hex')}`,
    petId: null,
    jobType: 'system.canary',
    mediaKind: 'image',
    queue: 'interactive',
    modelId: null,
    styleId: null,
    inputAssetId: null,
    expectsOutput: false,
    prompt: '',
    negativePrompt: '',
    width: null,
    height: null,
    parameters: {},
    providerCode: null,
    providerModel: null,
    modelVersion: null,
    styleCode: null,
    maxAttempts: 3,
    idempotencyKey: `key-${randomBytes(6).toString('hex')}`,
    requestHash: randomBytes(32),
    retryOfJobId: null,
    traceContext: null,
    startWithinSeconds: null,
    effectiveParameters: {},
    effectivePrompt: '',
    ...overrides,
  };
}
