import { InvalidArgumentError } from '@atelier/errors';
import { describedJobType } from '@atelier/job-types';
import type { JobDefinition } from './job-definition.js';
import { requireOneOfParameter, requireOnlyParameters } from './parameter-rules.js';

const described = describedJobType('image.upscale');

/** What a user may set; the model's defaults may hold more (domain/effective-parameters.ts). */
const USER_PARAMETERS: readonly string[] = ['scale'];

/** Enlarges an image. Nobody waits for it: background queue, more patient retries. */
export const imageUpscale: JobDefinition = {
  jobType: described.jobType,
  operatorOnly: described.operatorOnly,
  label: 'Upscale an image',
  queue: 'background',
  timeoutMs: 300_000,
  maxAttempts: 4,
  retryBackoff: { baseMs: 5_000, maxMs: 300_000 },
  retryOnTimeout: true,
  cancellable: true,
  contentSafety: false,
  usesModel: true,
  style: 'none',
  usesInputAsset: true,
  producesOutput: true,
  output: described.output,
  userParameters: USER_PARAMETERS,
  countsTowardQuota: true,
  retention: { redactInputsAfterDays: 30, deleteInputImageAfterDays: 7 },
  validateInput(command) {
    requireOnlyParameters(command.parameters, USER_PARAMETERS);
    requireOneOfParameter(command.parameters, 'scale', [2, 4]);
    if (command.prompt) throw new InvalidArgumentError('prompt', 'an upscale takes no prompt');
  },
};
