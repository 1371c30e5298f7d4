/**
 * What a job is actually run with: the catalog's contribution merged with the user's request at
 * create, once, and stored on the job (its catalog snapshot) so that a retry, a later attempt or
 * a catalog edit never changes what the vendor is asked.
 *
 * The rule, in order (a later layer wins):
 *   1. the model's `default_parameters`;
 *   2. the user's parameters, but only the names the job type lets a user set (its definition's
 *      `userParameters`; CreateJob has already refused any other name). A default the job type does
 *      not let users set is the operator's and always applies.
 * The prompt is the user's prompt, then the style's `prompt_preset`, joined by ", "
 * ("a cat on a sofa, a comic book panel with bold ink outlines"); when either is empty, the other alone.
 */
export interface EffectiveInputSources {
  /** The model's default_parameters (absent for job types without a model). */
  defaults: Readonly<Record<string, unknown>> | undefined;
  /** The user's parameters, as validated. */
  userParameters: Readonly<Record<string, unknown>>;
  /** The parameter names the job type lets a user set. */
  userSettable: readonly string[];
  /** The user's prompt, trimmed. */
  userPrompt: string;
  /** The style's prompt_preset (absent without a style). */
  promptPreset: string | undefined;
}

export interface EffectiveInput {
  parameters: Record<string, unknown>;
  prompt: string;
}

/** The separator between the user's prompt and the style's preset. */
export const PROMPT_PRESET_SEPARATOR = ', ';

export function effectiveInput(sources: EffectiveInputSources): EffectiveInput {
  const parameters: Record<string, unknown> = { ...(sources.defaults ?? {}) };
  for (const [name, value] of Object.entries(sources.userParameters)) {
    if (sources.userSettable.includes(name) && value !== undefined) parameters[name] = value;
  }
  const preset = sources.promptPreset?.trim() ?? '';
  const prompt = [sources.userPrompt.trim(), preset].filter((text) => text.length > 0).join(PROMPT_PRESET_SEPARATOR);
  return { parameters, prompt };
}
