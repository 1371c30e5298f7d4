// The gRPC adapter of the PetDirectory port against a fake client (a unit test).
import { describe, expect, it, vi } from 'vitest';
import { petsV1 } from '@atelier/contracts';
import { ErrorCode } from '@atelier/errors';
import { grpcPetDirectory, petNotFound } from './pet-directory.js';

describe('pet directory - the gRPC adapter', () => {
  it('asks CheckPetVisibility with its own deadline and answers `visible`', async () => {
    const checkPetVisibility = vi.fn(async (request: petsV1.CheckPetVisibilityRequest) =>
      request.petId === 'p1'
        ? { visible: true, relation: petsV1.PetRelation.SHARED }
        : { visible: false, relation: petsV1.PetRelation.NONE },
    );
    const pets = grpcPetDirectory({ checkPetVisibility }, { deadlineMs: 750 });
    await expect(pets.isVisible('ana', 'p1')).resolves.toBe(true);
    await expect(pets.isVisible('ana', 'p2')).resolves.toBe(false);
    expect(checkPetVisibility).toHaveBeenCalledWith({ userId: 'ana', petId: 'p1' }, { deadlineMs: 750 });
  });

  it('refuses an invisible pet as NOT_FOUND PET_NOT_FOUND on the pet_id field', () => {
    expect(petNotFound()).toMatchObject({ code: ErrorCode.NOT_FOUND, reason: 'PET_NOT_FOUND', field: 'pet_id' });
  });
});
