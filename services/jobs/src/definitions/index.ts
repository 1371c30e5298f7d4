import { imageStylize } from './image-stylize.js';
import { imageUpscale } from './image-upscale.js';
import { JobDefinitionRegistry } from './job-definition-registry.js';
import { systemCanary } from './system-canary.js';

export { JobDefinitionRegistry, JobDefinitionError } from './job-definition-registry.js';
export type { JobDefinition, JobCommand } from './job-definition.js';

/** Every job type this build ships. Adding one is adding a file and a line here. */
export const SHIPPED_DEFINITIONS = [imageStylize, imageUpscale, systemCanary] as const;

export function createRegistry(): JobDefinitionRegistry {
  return new JobDefinitionRegistry(SHIPPED_DEFINITIONS);
}
