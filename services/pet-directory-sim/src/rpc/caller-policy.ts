import type { petsV1 } from '@atelier/contracts';
import type { CallerPolicy } from '@atelier/grpc';

/**
 * Who may call what (callers are the service identities of their certificates): jobs asks whether
 * a job's pet is visible to its user before it accepts the job. The real pet service needs the same rule.
 */
export const petDirectoryCallerPolicy: CallerPolicy<typeof petsV1.PetDirectoryServiceService> = {
  jobs: ['checkPetVisibility'],
};
