import type { SeedPet } from './pet-seed.js';

/**
 * The pets of `npm start`'s development users (the JWT subjects scripts/dev-keys.ts signs):
 * pet-directory-sim serves these when PET_DIRECTORY_SEED is unset. `npm run demo` tags its job
 * with DEV_USER_PET.
 */
export const DEV_PET_IDS = {
  /** Mochi, dev-user's cat. */
  mochi: '019a3c1e-7f00-7000-8000-00000000f001',
  /** Biscuit, dev-user's dog. */
  biscuit: '019a3c1e-7f00-7000-8000-00000000f002',
  /** Pudding, a family member's rabbit, shared with dev-user. */
  pudding: '019a3c1e-7f00-7000-8000-00000000f003',
  /** Rex, a neighbour's dog, shared with nobody: dev-user may not tag it (404 40401). */
  rex: '019a3c1e-7f00-7000-8000-00000000f004',
} as const;

/** A pet dev-user owns: what the demo sends as petId. */
export const DEV_USER_PET = DEV_PET_IDS.mochi;

export const DEV_PETS: readonly SeedPet[] = [
  { id: DEV_PET_IDS.mochi, ownerUserId: 'dev-user', sharedWith: [] },
  { id: DEV_PET_IDS.biscuit, ownerUserId: 'dev-user', sharedWith: [] },
  { id: DEV_PET_IDS.pudding, ownerUserId: 'dev-family', sharedWith: ['dev-user'] },
  { id: DEV_PET_IDS.rex, ownerUserId: 'dev-neighbour', sharedWith: [] },
];
