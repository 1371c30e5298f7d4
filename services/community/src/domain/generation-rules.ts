import { FailedPreconditionError } from '@atelier/errors';
import type { StoredCategory } from './post-rules.js';

/** An ai_creation post shows a generated image, so it must say which job generated it. */
export function requireJobForCategory(category: StoredCategory, generationJobId: string | null): void {
  if (category === 'ai_creation' && generationJobId === null) {
    throw new FailedPreconditionError('GENERATION_JOB_REQUIRED', 'an ai_creation post must name the generation job that made its image');
  }
}

/** A post that names a generation job must show that job's output among its media. */
export function requireOutputAttached(outputAssetId: string | null, mediaAssetIds: readonly string[]): void {
  if (outputAssetId === null || !mediaAssetIds.includes(outputAssetId)) {
    throw new FailedPreconditionError(
      'GENERATION_OUTPUT_NOT_ATTACHED',
      outputAssetId === null
        ? 'the generation job produced no image to attach'
        : "the post's media must include the generation job's output image",
    );
  }
}
