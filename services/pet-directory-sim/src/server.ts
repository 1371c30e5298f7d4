import { loadDescriptorSet, petsV1 } from '@atelier/contracts';
import { registerService, startGrpcServer, type GrpcServerHandle, type GrpcServingOptions } from '@atelier/grpc';
import type { Logger } from '@atelier/logging';
import type { SeededPets } from './domain/pet-seed.js';
import { petDirectoryCallerPolicy } from './rpc/caller-policy.js';
import { checkPetVisibility } from './rpc/check-pet-visibility.js';

export const PET_DIRECTORY_SERVICE_NAME = 'atelier.pets.v1.PetDirectoryService';

/** Serves atelier.pets.v1.PetDirectoryService over mutual TLS, with health (and reflection when enabled). */
export function startPetDirectoryServer(pets: SeededPets, options: GrpcServingOptions & { logger: Logger }): Promise<GrpcServerHandle> {
  return startGrpcServer({
    ...options,
    descriptorSet: loadDescriptorSet(),
    services: [
      registerService(
        PET_DIRECTORY_SERVICE_NAME,
        petsV1.PetDirectoryServiceService,
        { checkPetVisibility: checkPetVisibility(pets) },
        options.logger,
        petDirectoryCallerPolicy,
      ),
    ],
  });
}
