import type { petsV1 } from '@atelier/contracts';
import { AppError, ErrorCode } from '@atelier/errors';
import type { PromiseClient } from '@atelier/grpc';

/**
 * The port to the app's pet service, which owns pets (atelier.pets.v1): may this user tag this
 * pet — do they own it, or did its owner share it with them? The pet service is the authority;
 * jobs keeps no pets. Resolves true or false; a pet service that cannot answer fails with its
 * error as it comes (UNAVAILABLE, DEADLINE_EXCEEDED …), for the caller to turn into its own.
 */
export interface PetDirectory {
  isVisible(userId: string, petId: string): Promise<boolean>;
}

export interface GrpcPetDirectoryOptions {
  /** The deadline of each call (PET_DIRECTORY_DEADLINE_MS): a create waits this long at most for the answer. */
  deadlineMs: number;
}

/**
 * The port over gRPC: CheckPetVisibility with a short deadline of its own (the client retries
 * UNAVAILABLE within it). `visible` is the answer; the relation says why, and is not needed here.
 */
export function grpcPetDirectory(
  client: Pick<PromiseClient<petsV1.PetDirectoryServiceClient>, 'checkPetVisibility'>,
  options: GrpcPetDirectoryOptions,
): PetDirectory {
  return {
    async isVisible(userId, petId) {
      const answer = await client.checkPetVisibility({ userId, petId }, { deadlineMs: options.deadlineMs });
      return answer.visible;
    },
  };
}

/**
 * CreateJob's refusal of a pet the user may not tag. One answer for a pet that does not exist and
 * one that is someone else's (the pet service answers both alike): it never tells which.
 */
export function petNotFound(): AppError {
  return new AppError(ErrorCode.NOT_FOUND, 'pet_id: no pet of yours, or shared with you, has this id', {
    reason: 'PET_NOT_FOUND',
    field: 'pet_id',
  });
}
