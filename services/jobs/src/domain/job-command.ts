import type { jobsV1 } from '@atelier/contracts';
import { InvalidArgumentError } from '@atelier/errors';
import { MAX_IMAGE_SIDE_PX, MIN_IMAGE_SIDE_PX } from '@atelier/images';
import { START_WITHIN_SECONDS } from '@atelier/job-types';
import { MAX_NEGATIVE_PROMPT_LENGTH, MAX_PROMPT_LENGTH, requireIntInRange, requireText, requireUuid } from '@atelier/validation';
import type { JobCommand, JobDefinition } from '../definitions/index.js';

const MAX_PARAMETERS_BYTES = 16 * 1024;

function optionalUuid(value: string | undefined, field: string): string | null {
  return value === undefined || value === '' ? null : requireUuid(value, field);
}

function requirePresence(value: unknown, field: string, rule: 'required' | 'optional' | 'none', jobType: string): void {
  if (rule === 'required' && value === null) throw new InvalidArgumentError(field, `is required for ${jobType}`);
  if (rule === 'none' && value !== null) throw new InvalidArgumentError(field, `is not used by ${jobType}`);
}

/**
 * The user's request as a normalised command: ids canonical, text within `@atelier/validation`'s limits
 * (MAX_PROMPT_LENGTH, MAX_NEGATIVE_PROMPT_LENGTH), dimensions within `@atelier/images`' limits, parameters a small JSON object, a
 * start deadline within START_WITHIN_SECONDS, and the fields the job type needs present and the ones it does not use absent.
 */
export function normaliseCommand(request: jobsV1.CreateJobRequest, definition: JobDefinition): JobCommand {
  const prompt = requireText(request.prompt, 'prompt', MAX_PROMPT_LENGTH, { allowEmpty: true });
  const negativePrompt = requireText(request.negativePrompt, 'negative_prompt', MAX_NEGATIVE_PROMPT_LENGTH, { allowEmpty: true });
  const parameters = request.parameters ?? {};
  const parametersJson = JSON.stringify(parameters);
  if (Buffer.byteLength(parametersJson) > MAX_PARAMETERS_BYTES) {
    throw new InvalidArgumentError('parameters', `must be at most ${MAX_PARAMETERS_BYTES} bytes as JSON`);
  }
  // jsonb refuses \u0000 in keys and strings (SQLSTATE 22P05).
  if (parametersJson.includes('\\u0000')) throw new InvalidArgumentError('parameters', 'must not contain the NUL character (U+0000)');
  const command: JobCommand = {
    jobType: definition.jobType,
    petId: optionalUuid(request.petId, 'pet_id'),
    modelId: optionalUuid(request.modelId, 'model_id'),
    styleId: optionalUuid(request.styleId, 'style_id'),
    inputAssetId: optionalUuid(request.inputAssetId, 'input_asset_id'),
    prompt,
    negativePrompt,
    width: request.width === undefined ? null : requireIntInRange(request.width, 'width', MIN_IMAGE_SIDE_PX, MAX_IMAGE_SIDE_PX),
    height: request.height === undefined ? null : requireIntInRange(request.height, 'height', MIN_IMAGE_SIDE_PX, MAX_IMAGE_SIDE_PX),
    parameters,
    startWithinSeconds:
      request.startWithinSeconds === undefined
        ? undefined
        : requireIntInRange(request.startWithinSeconds, 'start_within_seconds', START_WITHIN_SECONDS.min, START_WITHIN_SECONDS.max),
  };
  const credentialId = optionalUuid(request.credentialId, 'credential_id');
  if (credentialId) command.credentialId = credentialId;
  requirePresence(command.modelId, 'model_id', definition.usesModel ? 'required' : 'none', definition.jobType);
  requirePresence(command.styleId, 'style_id', definition.style, definition.jobType);
  if (credentialId && !definition.usesModel) throw new InvalidArgumentError('credential_id', `is not used by ${definition.jobType}`);
  requirePresence(command.inputAssetId, 'input_asset_id', definition.usesInputAsset ? 'required' : 'none', definition.jobType);
  definition.validateInput(command);
  return command;
}
