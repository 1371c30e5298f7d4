// pet-directory-sim as it runs (its own process, mutual TLS, a seed from the environment), called
// as jobs calls it, and as callers it refuses.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { petsV1 } from '@atelier/contracts';
import { ErrorCode } from '@atelier/errors';
import type { PromiseClient } from '@atelier/grpc';
import { startGrpcServiceProcess, testClient, type ServiceProcess } from '@atelier/testing';

const PETS = {
  anasCat: '0a7e0000-0000-4000-8000-0000000000a1',
  bensDog: '0a7e0000-0000-4000-8000-0000000000b1',
  unknown: '0a7e0000-0000-4000-8000-0000000000ff',
};
const SEED = [
  { id: PETS.anasCat, ownerUserId: 'ana', sharedWith: ['ben'] },
  { id: PETS.bensDog, ownerUserId: 'ben' },
];

let sim: ServiceProcess;
let asJobs: PromiseClient<petsV1.PetDirectoryServiceClient>;
const clients: PromiseClient<petsV1.PetDirectoryServiceClient>[] = [];

/** A client of the simulator as `identity`; it proves pet-directory-sim, the identity jobs expects of it locally. */
async function clientAs(identity: string) {
  const client = await testClient(petsV1.PetDirectoryServiceClient, sim.address, identity, { serverName: 'pet-directory-sim' });
  clients.push(client);
  return client;
}

beforeAll(async () => {
  sim = await startGrpcServiceProcess('pet-directory-sim', { PET_DIRECTORY_SEED: JSON.stringify(SEED) });
  asJobs = await clientAs('jobs');
}, 60_000);

afterAll(async () => {
  for (const client of clients) client.close();
  await sim?.stop();
});

async function refusal(promise: Promise<unknown>): Promise<{ code: string; reason?: string; message: string }> {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!outcome) throw new Error('the call should have been refused');
  return outcome as never;
}

describe('pet-directory-sim - CheckPetVisibility', () => {
  it('answers the owner OWNER, a user the pet is shared with SHARED, anyone else NONE', async () => {
    await expect(asJobs.checkPetVisibility({ userId: 'ana', petId: PETS.anasCat })).resolves.toEqual({
      visible: true,
      relation: petsV1.PetRelation.OWNER,
    });
    await expect(asJobs.checkPetVisibility({ userId: 'ben', petId: PETS.anasCat })).resolves.toEqual({
      visible: true,
      relation: petsV1.PetRelation.SHARED,
    });
    await expect(asJobs.checkPetVisibility({ userId: 'ana', petId: PETS.bensDog })).resolves.toEqual({
      visible: false,
      relation: petsV1.PetRelation.NONE,
    });
  });

  it('answers a pet that does not exist exactly like one the user may not see', async () => {
    const unknown = await asJobs.checkPetVisibility({ userId: 'ana', petId: PETS.unknown });
    const someoneElses = await asJobs.checkPetVisibility({ userId: 'ana', petId: PETS.bensDog });
    expect(unknown).toEqual(someoneElses);
  });

  it('refuses an empty user or pet id, naming the field', async () => {
    await expect(refusal(asJobs.checkPetVisibility({ userId: '', petId: PETS.anasCat }))).resolves.toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      message: 'user_id: is required',
    });
    await expect(refusal(asJobs.checkPetVisibility({ userId: 'ana', petId: '' }))).resolves.toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      message: 'pet_id: is required',
    });
  });

  it('lets jobs alone ask: any other identity of the platform is PERMISSION_DENIED', async () => {
    for (const identity of ['gateway', 'worker', 'stranger']) {
      const other = await clientAs(identity);
      await expect(refusal(other.checkPetVisibility({ userId: 'ana', petId: PETS.anasCat })), identity).resolves.toMatchObject({
        code: ErrorCode.PERMISSION_DENIED,
      });
    }
  });
});

describe('pet-directory-sim - process start-up', () => {
  it('stops with exit code 78 naming PET_DIRECTORY_SEED when the seed is bad', async () => {
    await expect(startGrpcServiceProcess('pet-directory-sim', { PET_DIRECTORY_SEED: '[{"id": "pet-1"}]' })).rejects.toThrow(
      /exited \(78\)[\s\S]*PET_DIRECTORY_SEED entry 0: id must be a UUID/,
    );
  });
});
