import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '@atelier/errors';
import { JOB_TYPES } from '@atelier/job-types';
import {
  JobDefinitionError,
  JobDefinitionRegistry,
  SHIPPED_DEFINITIONS,
  createRegistry,
  type JobCommand,
  type JobDefinition,
} from './index.js';

const canary = SHIPPED_DEFINITIONS.find((d) => d.jobType === 'system.canary')!;
const stylize = SHIPPED_DEFINITIONS.find((d) => d.jobType === 'image.stylize')!;
const command = (overrides: Partial<JobCommand> = {}): JobCommand => ({
  jobType: 'image.stylize',
  petId: null,
  modelId: null,
  styleId: null,
  inputAssetId: null,
  prompt: '',
  negativePrompt: '',
  width: null,
  height: null,
  parameters: {},
  ...overrides,
});

describe('job definitions - registry', () => {
  it('ships image.stylize (interactive), image.upscale (background) and system.canary', () => {
    const registry = createRegistry();
    expect(registry.get('image.stylize').queue).toBe('interactive');
    expect(registry.get('image.upscale').queue).toBe('background');
    expect(registry.get('system.canary')).toMatchObject({ usesModel: false, usesInputAsset: false, producesOutput: false });
  });

  it('refuses an unknown job type with INVALID_ARGUMENT naming the field', () => {
    expect(() => createRegistry().get('image.explode')).toThrow(InvalidArgumentError);
    try {
      createRegistry().get('image.explode');
    } catch (error) {
      expect((error as InvalidArgumentError).field).toBe('job_type');
    }
  });

  it.each<[string, Partial<JobDefinition>, RegExp]>([
    ['a bad jobType', { jobType: 'Bad Type' }, /jobType "Bad Type" must match/],
    ['a timeout under 1 s', { timeoutMs: 999 }, /timeoutMs must be between 1000 and 600000, got 999/],
    ['a timeout over 600 s', { timeoutMs: 600_001 }, /timeoutMs must be between/],
    ['an unknown queue', { queue: 'urgent' as never }, /unknown queue "urgent"/],
    ['zero attempts', { maxAttempts: 0 }, /maxAttempts/],
    ['output without a model', { producesOutput: true, usesModel: false }, /needs a model/],
    ['a type the platform does not list', { jobType: 'system.other' }, /system.other: not a job type of @atelier\/job-types/],
    ['operatorOnly other than the list says', { operatorOnly: false }, /system.canary: operatorOnly must be true/],
    [
      'a retention of no days',
      { retention: { redactInputsAfterDays: 0, deleteInputImageAfterDays: 1 } },
      /retention.redactInputsAfterDays must be a whole number of days in 1..3650, got 0/,
    ],
    [
      'a retention of part of a day',
      { retention: { redactInputsAfterDays: 1, deleteInputImageAfterDays: 1.5 } },
      /deleteInputImageAfterDays/,
    ],
  ])('fails start-up on %s', (_name, overrides, message) => {
    expect(() => new JobDefinitionRegistry([{ ...canary, ...overrides }])).toThrow(message);
    expect(() => new JobDefinitionRegistry([{ ...canary, ...overrides }])).toThrow(JobDefinitionError);
  });

  it.each<[string, Partial<JobDefinition>, RegExp]>([
    ['output rules other than the list declares', { output: { ...stylize.output!, validationRetries: 0 } }, /output must be the rules/],
    ['an output without rules', { output: undefined }, /image.stylize: output must be the rules/],
    ['more validation retries than attempts', { maxAttempts: 1 }, /validationRetries \(1\) must leave room within maxAttempts \(1\)/],
  ])('fails start-up on %s', (_name, overrides, message) => {
    expect(() => new JobDefinitionRegistry([{ ...stylize, ...overrides }])).toThrow(message);
  });

  it('refuses a type that produces output without declaring rules for it', () => {
    expect(() => new JobDefinitionRegistry([{ ...canary, producesOutput: true, usesModel: true }])).toThrow(
      /system.canary: a job type has output rules exactly when it produces output/,
    );
  });

  it('defines every job type of @atelier/job-types, and no other', () => {
    expect(SHIPPED_DEFINITIONS.map((d) => d.jobType).sort()).toEqual(JOB_TYPES.map((t) => t.jobType).sort());
  });

  it('fails start-up on a duplicate definition', () => {
    expect(() => new JobDefinitionRegistry([canary, { ...canary }])).toThrow('duplicate job definition: system.canary');
  });
});

describe('job definitions - input rules', () => {
  const registry = createRegistry();
  it('accepts known parameters within range and names a bad one', () => {
    expect(() => registry.get('image.stylize').validateInput(command({ parameters: { strength: 0.5 } }))).not.toThrow();
    expect(() => registry.get('image.stylize').validateInput(command({ parameters: { strength: 2 } }))).toThrow('parameters.strength');
    expect(() => registry.get('image.stylize').validateInput(command({ parameters: { colour: 'red' } }))).toThrow('parameters.colour');
    expect(() => registry.get('image.upscale').validateInput(command({ jobType: 'image.upscale', parameters: { scale: 3 } }))).toThrow(
      'parameters.scale',
    );
    expect(() => registry.get('system.canary').validateInput(command({ jobType: 'system.canary', prompt: 'hi' }))).toThrow('prompt');
  });
});
