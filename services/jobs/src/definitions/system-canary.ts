import { InvalidArgumentError } from '@atelier/errors';
import type { JobDefinition } from './job-definition.js';
import { requireOnlyParameters } from './parameter-rules.js';

/**
 * The operators' probe of the whole pipeline (CreateJob → outbox → JetStream → worker →
 * succeeded) and the engine's benchmark: no model, no input, no provider, no output; the worker
 * completes it at once. It does not count toward quotas (the gateway offers it to operators only).
 */
export const systemCanary: JobDefinition = {
  jobType: 'system.canary',
  label: 'Pipeline canary',
  queue: 'interactive',
  defaultPriority: 0,
  timeoutMs: 10_000,
  maxAttempts: 3,
  retryBackoff: { baseMs: 1_000, maxMs: 10_000 },
  retryOnTimeout: true,
  cancellable: true,
  contentSafety: false,
  usesModel: false,
  style: 'none',
  usesInputAsset: false,
  producesOutput: false,
  countsTowardQuota: false,
  validateInput(command) {
    requireOnlyParameters(command.parameters, []);
    if (command.prompt || command.negativePrompt) throw new InvalidArgumentError('prompt', 'the canary takes no prompt');
    if (command.width !== null || command.height !== null) throw new InvalidArgumentError('width', 'the canary takes no dimensions');
  },
};
