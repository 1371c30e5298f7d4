import { mediaV1 } from '@atelier/contracts';
import type { PromiseClient } from '@atelier/grpc';

/** What media did with an expired input image (media's DeleteExpiredInput). */
export type InputImageOutcome = 'deleted' | 'gone' | 'in_use_by_job' | 'in_use_by_post';

/** Retention's one question to media: delete this input image unless something still uses it. */
export interface InputImageRemover {
  removeExpiredInput(assetId: string, ownerUserId: string): Promise<InputImageOutcome>;
}

const OUTCOMES: ReadonlyMap<mediaV1.ExpiredInputOutcome, InputImageOutcome> = new Map([
  [mediaV1.ExpiredInputOutcome.DELETED, 'deleted'],
  [mediaV1.ExpiredInputOutcome.GONE, 'gone'],
  [mediaV1.ExpiredInputOutcome.IN_USE_BY_JOB, 'in_use_by_job'],
  [mediaV1.ExpiredInputOutcome.IN_USE_BY_POST, 'in_use_by_post'],
]);

/** Over media's gRPC API; an outcome this build does not know is an error (nothing is recorded on a guess). */
export function grpcInputImageRemover(media: Pick<PromiseClient<mediaV1.MediaServiceClient>, 'deleteExpiredInput'>): InputImageRemover {
  return {
    async removeExpiredInput(assetId, ownerUserId) {
      const { outcome } = await media.deleteExpiredInput({ assetId, ownerUserId });
      const known = OUTCOMES.get(outcome);
      if (!known) throw new Error(`media answered DeleteExpiredInput with an unknown outcome (${outcome})`);
      return known;
    },
  };
}
