import { petsV1 } from '@atelier/contracts';
import { InvalidArgumentError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import { requireUserId } from '@atelier/validation';
import type { PetRelation, SeededPets } from '../domain/pet-seed.js';

type CheckPetVisibility = Handler<typeof petsV1.PetDirectoryServiceService.checkPetVisibility>;

const RELATIONS: Readonly<Record<PetRelation, petsV1.PetRelation>> = {
  owner: petsV1.PetRelation.OWNER,
  shared: petsV1.PetRelation.SHARED,
  none: petsV1.PetRelation.NONE,
};

/** Visible to its owner and to the users it is shared with; an unknown pet answers as someone else's does. */
export function checkPetVisibility(pets: SeededPets): CheckPetVisibility {
  return async (request) => {
    const userId = requireUserId(request.userId, 'user_id');
    if (!request.petId) throw new InvalidArgumentError('pet_id', 'is required');
    const relation = pets.relationOf(userId, request.petId);
    return { visible: relation !== 'none', relation: RELATIONS[relation] };
  };
}
