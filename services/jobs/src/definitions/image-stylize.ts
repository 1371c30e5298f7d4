import { describedJobType } from '@atelier/job-types';
import type { JobDefinition } from './job-definition.js';
import { requireNumberParameter, requireOnlyParameters } from './parameter-rules.js';

const described = describedJobType('image.stylize');

/** What a user may set; the model's defaults may hold more (domain/effective-parameters.ts). */
const USER_PARAMETERS: readonly string[] = ['strength', 'seed'];

/** Restyles the user's photo with a catalog style. A user is waiting: interactive queue. */
export const imageStylize: JobDefinition = {
  jobType: described.jobType,
  operatorOnly: described.operatorOnly,
  label: 'Stylize an image',
  queue: 'interactive',
  timeoutMs: 120_000,
  maxAttempts: 3,
  retryBackoff: { baseMs: 2_000, maxMs: 60_000 },
  retryOnTimeout: true,
  cancellable: true,
  contentSafety: true,
  usesModel: true,
  style: 'required',
  usesInputAsset: true,
  producesOutput: true,
  output: described.output,
  userParameters: USER_PARAMETERS,
  countsTowardQuota: true,
  retention: { redactInputsAfterDays: 30, deleteInputImageAfterDays: 30 },
  validateInput(command) {
    requireOnlyParameters(command.parameters, USER_PARAMETERS);
    requireNumberParameter(command.parameters, 'strength', 0, 1);
    requireNumberParameter(command.parameters, 'seed', 0, 2 ** 31 - 1);
  },
};
