import { InvalidArgumentError } from '@atelier/errors';
import { describedJobType } from '@atelier/job-types';
import type { JobDefinition } from './job-definition.js';
import { requireOnlyParameters } from './parameter-rules.js';

const described = describedJobType('system.canary');

/** What a user may set; the model's defaults may hold more (domain/effective-parameters.ts). */
const USER_PARAMETERS: readonly string[] = [];

/**
 * The operators' probe of the whole pipeline (CreateJob → outbox → JetStream → worker →
 * succeeded) and the engine's benchmark: no model, no input, no provider, no output; the worker
 * completes it at once. It does not count toward quotas, and only operators may create it (operatorOnly).
 */
export const systemCanary: JobDefinition = {
  jobType: described.jobType,
  operatorOnly: described.operatorOnly,
  label: 'Pipeline canary',
  queue: 'interactive',
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
  userParameters: USER_PARAMETERS,
  countsTowardQuota: false,
  retention: { redactInputsAfterDays: 1, deleteInputImageAfterDays: 1 },
  validateInput(command) {
    requireOnlyParameters(command.parameters, USER_PARAMETERS);
    if (command.prompt || command.negativePrompt) throw new InvalidArgumentError('prompt', 'the canary takes no prompt');
    if (command.width !== null || command.height !== null) throw new InvalidArgumentError('width', 'the canary takes no dimensions');
  },
};
