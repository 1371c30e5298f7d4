import { JOB_TYPE_PATTERN, JOB_TYPES, PROVIDER_CODES, findJobType, isKnownProviderCode } from '@atelier/job-types';
import type { catalogV1 } from '@atelier/contracts';
import { InvalidArgumentError } from '@atelier/errors';
import {
  CATALOG_SORT_ORDER_LIMIT,
  MAX_MODEL_DISPLAY_NAME_LENGTH,
  MAX_MODEL_VERSION_LENGTH,
  MAX_PROMPT_PRESET_LENGTH,
  MAX_PROVIDER_MODEL_LENGTH,
  MAX_STYLE_SUBTITLE_LENGTH,
  MAX_STYLE_TITLE_LENGTH,
  requireText,
  requireUuid,
} from '@atelier/validation';
import { requireMediaKind, type StoredMediaKind } from './media-kind.js';
import { requireTranslations, type Translations } from './localized-text.js';

/**
 * The rules an operator's catalog entry must follow. They mirror the tables' CHECK constraints
 * so a bad entry is refused with the field named instead of a constraint violation.
 */
const CODE_PATTERN = /^[a-z0-9][a-z0-9_-]{1,63}$/;
const CODE_SHAPE = '2–64 lower-case letters, digits, "-" or "_", starting with a letter or a digit';
const PROVIDER_CODE_PATTERN = /^[a-z][a-z0-9_-]{0,63}$/;
const MAX_DEFAULT_PARAMETERS_BYTES = 16 * 1024;

export interface ModelInput {
  code: string;
  mediaKind: StoredMediaKind;
  displayName: string;
  providerCode: string;
  providerModel: string;
  modelVersion: string;
  jobType: string;
  enabled: boolean | undefined;
  sortOrder: number;
  defaultParameters: Record<string, unknown>;
  /** Absent: an update keeps the model's translations. */
  displayNameI18n: Translations | undefined;
  /** Absent: ["platform_key"] for a new model, an update keeps the model's. */
  credentialModes: CredentialMode[] | undefined;
}

/** Whose vendor key a job may run with (docs/credentials.md). */
export const CREDENTIAL_MODES = ['platform_key', 'user_key'] as const;
export type CredentialMode = (typeof CREDENTIAL_MODES)[number];

/** Each known mode at most once; none: absent (the default, or the model's own). */
export function requireCredentialModes(modes: readonly string[]): CredentialMode[] | undefined {
  if (modes.length === 0) return undefined;
  const known = new Set<string>(CREDENTIAL_MODES);
  if (modes.length > CREDENTIAL_MODES.length || new Set(modes).size !== modes.length || !modes.every((mode) => known.has(mode))) {
    throw new InvalidArgumentError('credential_modes', `must be distinct values of ${CREDENTIAL_MODES.join(', ')}`);
  }
  return modes as CredentialMode[];
}

export interface StyleInput {
  code: string;
  mediaKind: StoredMediaKind;
  title: string;
  subtitle: string;
  previewAssetId: string | null;
  promptPreset: string;
  enabled: boolean | undefined;
  sortOrder: number;
  /** Absent: an update keeps the style's translations. */
  titleI18n: Translations | undefined;
  subtitleI18n: Translations | undefined;
}

/** Catalog ids are UUIDs. */
export const requireId = requireUuid;

function requireCode(value: string, field: string, pattern: RegExp, shape: string): string {
  if (!pattern.test(value)) throw new InvalidArgumentError(field, `must be ${shape}, got "${value.slice(0, 80)}"`);
  return value;
}

function requireSortOrder(value: number): number {
  if (!Number.isInteger(value) || Math.abs(value) > CATALOG_SORT_ORDER_LIMIT) {
    throw new InvalidArgumentError('sort_order', `must be an integer between -${CATALOG_SORT_ORDER_LIMIT} and ${CATALOG_SORT_ORDER_LIMIT}`);
  }
  return value;
}

/**
 * A model must name a job type this build ships and a provider it has a client for: an entry the
 * platform cannot run would be offered to users and fail every job made with it.
 */
function requireKnown(value: string, field: string, known: boolean, what: string, list: readonly string[]): string {
  if (!known)
    throw new InvalidArgumentError(field, `"${value.slice(0, 80)}" is not a ${what} this platform has (known: ${list.join(', ')})`);
  return value;
}

export function validateModelInput(request: catalogV1.UpsertModelRequest): ModelInput {
  const defaultParameters = request.defaultParameters ?? {};
  if (Buffer.byteLength(JSON.stringify(defaultParameters)) > MAX_DEFAULT_PARAMETERS_BYTES) {
    throw new InvalidArgumentError('default_parameters', `must be at most ${MAX_DEFAULT_PARAMETERS_BYTES} bytes as JSON`);
  }
  return {
    code: requireCode(request.code, 'code', CODE_PATTERN, CODE_SHAPE),
    mediaKind: requireMediaKind(request.mediaKind),
    displayName: requireText(request.displayName, 'display_name', MAX_MODEL_DISPLAY_NAME_LENGTH),
    providerCode: requireKnown(
      requireCode(request.providerCode, 'provider_code', PROVIDER_CODE_PATTERN, 'a lower-case identifier'),
      'provider_code',
      isKnownProviderCode(request.providerCode),
      'provider code',
      PROVIDER_CODES,
    ),
    providerModel: requireText(request.providerModel, 'provider_model', MAX_PROVIDER_MODEL_LENGTH),
    modelVersion: requireText(request.modelVersion, 'model_version', MAX_MODEL_VERSION_LENGTH),
    jobType: requireKnown(
      requireCode(request.jobType, 'job_type', JOB_TYPE_PATTERN, 'a job type such as image.stylize'),
      'job_type',
      findJobType(request.jobType) !== undefined,
      'job type',
      JOB_TYPES.map((type) => type.jobType),
    ),
    enabled: request.enabled,
    sortOrder: requireSortOrder(request.sortOrder),
    defaultParameters,
    displayNameI18n: requireTranslations(request.displayNameI18n, 'display_name_i18n', MAX_MODEL_DISPLAY_NAME_LENGTH),
    credentialModes: requireCredentialModes(request.credentialModes),
  };
}

export function validateStyleInput(request: catalogV1.UpsertStyleRequest): StyleInput {
  return {
    code: requireCode(request.code, 'code', CODE_PATTERN, CODE_SHAPE),
    mediaKind: requireMediaKind(request.mediaKind),
    title: requireText(request.title, 'title', MAX_STYLE_TITLE_LENGTH),
    subtitle: requireText(request.subtitle, 'subtitle', MAX_STYLE_SUBTITLE_LENGTH, { allowEmpty: true }),
    previewAssetId: request.previewAssetId ? requireId(request.previewAssetId, 'preview_asset_id') : null,
    promptPreset: requireText(request.promptPreset, 'prompt_preset', MAX_PROMPT_PRESET_LENGTH, { allowEmpty: true }),
    enabled: request.enabled,
    sortOrder: requireSortOrder(request.sortOrder),
    titleI18n: requireTranslations(request.titleI18n, 'title_i18n', MAX_STYLE_TITLE_LENGTH),
    subtitleI18n: requireTranslations(request.subtitleI18n, 'subtitle_i18n', MAX_STYLE_SUBTITLE_LENGTH),
  };
}
