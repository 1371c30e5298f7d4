import { describe, expect, it } from 'vitest';
import { effectiveInput, type EffectiveInputSources } from './effective-parameters.js';

const sources = (overrides: Partial<EffectiveInputSources> = {}): EffectiveInputSources => ({
  defaults: { strength: 0.6 },
  userParameters: {},
  userSettable: ['strength', 'seed'],
  userPrompt: '',
  promptPreset: undefined,
  ...overrides,
});

describe('effective parameters - merge rule', () => {
  it('takes the model defaults when the user gives nothing', () => {
    expect(effectiveInput(sources()).parameters).toEqual({ strength: 0.6 });
  });

  it('lets a user value win over a default the job type lets users set', () => {
    expect(effectiveInput(sources({ userParameters: { strength: 0.9, seed: 7 } })).parameters).toEqual({ strength: 0.9, seed: 7 });
  });

  it('keeps a default users may not set, whatever the user sent', () => {
    const merged = effectiveInput(sources({ defaults: { strength: 0.6, sampler: 'euler' }, userParameters: { sampler: 'ddim' } }));
    expect(merged.parameters).toEqual({ strength: 0.6, sampler: 'euler' });
  });

  it('works without a model (no defaults)', () => {
    expect(effectiveInput(sources({ defaults: undefined, userParameters: { seed: 1 } })).parameters).toEqual({ seed: 1 });
  });

  it('does not change its inputs', () => {
    const defaults = { strength: 0.6 };
    effectiveInput(sources({ defaults, userParameters: { strength: 0.1 } }));
    expect(defaults).toEqual({ strength: 0.6 });
  });
});

describe('effective parameters - prompt and preset', () => {
  it('puts the user prompt first, then the preset, joined by ", "', () => {
    expect(effectiveInput(sources({ userPrompt: 'a cat', promptPreset: 'a comic book panel with bold ink outlines' })).prompt).toBe(
      'a cat, a comic book panel with bold ink outlines',
    );
  });

  it('uses the preset alone when the user gave no prompt, and the prompt alone without a preset', () => {
    expect(effectiveInput(sources({ promptPreset: '16-bit pixel art' })).prompt).toBe('16-bit pixel art');
    expect(effectiveInput(sources({ userPrompt: 'a cat', promptPreset: '  ' })).prompt).toBe('a cat');
    expect(effectiveInput(sources()).prompt).toBe('');
  });
});
