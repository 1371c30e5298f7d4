import { describe, expect, it } from 'vitest';
import { catalogV1, commonV1 } from '@atelier/contracts';
import { InvalidArgumentError } from '@atelier/errors';
import { validateModelInput, validateStyleInput } from './catalog-rules.js';

const model = (overrides: Partial<catalogV1.UpsertModelRequest> = {}) =>
  catalogV1.UpsertModelRequest.fromPartial({
    code: 'my-model',
    mediaKind: commonV1.MediaKind.IMAGE,
    displayName: '  My Model ',
    providerCode: 'sim',
    providerModel: 'sim-x',
    modelVersion: '2.1',
    jobType: 'image.stylize',
    sortOrder: 5,
    defaultParameters: { strength: 0.5 },
    ...overrides,
  });

function fieldOf(work: () => unknown): string | undefined {
  try {
    work();
  } catch (error) {
    if (error instanceof InvalidArgumentError) return error.field;
    throw error;
  }
  return undefined;
}

describe('catalog rules - model entries', () => {
  it('accepts a well-formed model and trims its names', () => {
    expect(validateModelInput(model())).toMatchObject({
      code: 'my-model',
      mediaKind: 'image',
      displayName: 'My Model',
      enabled: undefined,
    });
  });

  it.each([
    ['code', { code: 'My Model' }],
    ['code', { code: 'x' }],
    ['code', { code: '-3d' }],
    ['media_kind', { mediaKind: commonV1.MediaKind.UNSPECIFIED }],
    ['display_name', { displayName: '   ' }],
    ['display_name', { displayName: 'x'.repeat(121) }],
    ['provider_code', { providerCode: 'Sim!' }],
    ['provider_code', { providerCode: 'acme' }],
    ['provider_model', { providerModel: '' }],
    ['model_version', { modelVersion: '' }],
    ['job_type', { jobType: 'Image Stylize' }],
    ['job_type', { jobType: 'video.stylize' }],
    ['sort_order', { sortOrder: 2_000_000 }],
    ['default_parameters', { defaultParameters: { blob: 'x'.repeat(20_000) } }],
  ])('names %s when it is invalid', (field, overrides) => {
    expect(fieldOf(() => validateModelInput(model(overrides as Partial<catalogV1.UpsertModelRequest>)))).toBe(field);
  });

  it('says which job types and provider codes exist when one is unknown', () => {
    expect(() => validateModelInput(model({ jobType: 'video.stylize' }))).toThrow(
      /"video.stylize" is not a job type this platform has \(known: image.stylize, image.upscale, system.canary\)/,
    );
    expect(() => validateModelInput(model({ providerCode: 'acme' }))).toThrow(
      /"acme" is not a provider code this platform has \(known: sim\)/,
    );
  });
});

describe('catalog rules - credential modes', () => {
  it('takes distinct known modes, and none as "the default, or unchanged"', () => {
    expect(validateModelInput(model()).credentialModes).toBeUndefined();
    expect(validateModelInput(model({ credentialModes: ['user_key'] })).credentialModes).toEqual(['user_key']);
    expect(validateModelInput(model({ credentialModes: ['platform_key', 'user_key'] })).credentialModes).toEqual([
      'platform_key',
      'user_key',
    ]);
  });

  it.each([[['user_key', 'user_key']], [['team_key']], [['platform_key', 'user_key', 'platform_key']]])(
    'refuses %j naming credential_modes',
    (modes) => {
      expect(fieldOf(() => validateModelInput(model({ credentialModes: modes })))).toBe('credential_modes');
    },
  );
});

describe('catalog rules - style entries', () => {
  const style = (overrides: Partial<catalogV1.UpsertStyleRequest> = {}) =>
    catalogV1.UpsertStyleRequest.fromPartial({ code: 'noir', mediaKind: commonV1.MediaKind.IMAGE, title: 'Noir', ...overrides });

  it('accepts a style without preview or subtitle', () => {
    expect(validateStyleInput(style())).toMatchObject({ code: 'noir', previewAssetId: null, subtitle: '', promptPreset: '' });
  });

  it("accepts a code that starts with a digit, as the app's 3d does, but not one that starts with - or _", () => {
    expect(validateStyleInput(style({ code: '3d' })).code).toBe('3d');
    expect(fieldOf(() => validateStyleInput(style({ code: '_3d' })))).toBe('code');
    expect(() => validateStyleInput(style({ code: '-3d' }))).toThrow('starting with a letter or a digit, got "-3d"');
  });

  it.each([
    ['title', { title: '' }],
    ['subtitle', { subtitle: 'x'.repeat(201) }],
    ['preview_asset_id', { previewAssetId: 'not-a-uuid' }],
    ['prompt_preset', { promptPreset: 'x'.repeat(2001) }],
  ])('names %s when it is invalid', (field, overrides) => {
    expect(fieldOf(() => validateStyleInput(style(overrides as Partial<catalogV1.UpsertStyleRequest>)))).toBe(field);
  });
});
