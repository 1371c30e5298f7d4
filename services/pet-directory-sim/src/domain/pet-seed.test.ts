import { describe, expect, it } from 'vitest';
import { DEV_PET_IDS, DEV_PETS } from './dev-pets.js';
import { MAX_SEED_PETS, SeededPets, parsePetSeed } from './pet-seed.js';

const PET_A = '0a7e0000-0000-4000-8000-00000000000a';
const PET_B = '0a7e0000-0000-4000-8000-00000000000b';

describe('pet seed - who sees which pet', () => {
  const pets = new SeededPets([
    { id: PET_A, ownerUserId: 'ana', sharedWith: ['ben'] },
    { id: PET_B, ownerUserId: 'ben', sharedWith: [] },
  ]);

  it('shows a pet to its owner and to the users it is shared with, and to nobody else', () => {
    expect(pets.relationOf('ana', PET_A)).toBe('owner');
    expect(pets.relationOf('ben', PET_A)).toBe('shared');
    expect(pets.relationOf('cai', PET_A)).toBe('none');
    expect(pets.relationOf('ana', PET_B), 'sharing is not mutual').toBe('none');
  });

  it('answers an unknown pet exactly as another user’s, and reads ids in any case', () => {
    expect(pets.relationOf('ana', '0a7e0000-0000-4000-8000-0000000000ff')).toBe('none');
    expect(pets.relationOf('ana', PET_A.toUpperCase())).toBe('owner');
  });

  it('gives the development users an own pet, a shared one and one they may not see', () => {
    const dev = new SeededPets(DEV_PETS);
    expect(dev.relationOf('dev-user', DEV_PET_IDS.mochi)).toBe('owner');
    expect(dev.relationOf('dev-user', DEV_PET_IDS.biscuit)).toBe('owner');
    expect(dev.relationOf('dev-user', DEV_PET_IDS.pudding)).toBe('shared');
    expect(dev.relationOf('dev-user', DEV_PET_IDS.rex)).toBe('none');
  });
});

describe('pet seed - reading one', () => {
  it.each([
    ['not json', 'must be JSON'],
    ['{"id": "x"}', 'must be a JSON array'],
    ['[42]', 'entry 0: must be an object'],
    [`[{"id": "pet-1", "ownerUserId": "ana"}]`, 'entry 0: id must be a UUID'],
    [`[{"id": "${PET_A}", "ownerUserId": "ana"}, {"id": "${PET_A}", "ownerUserId": "ben"}]`, "entry 1: id repeats an earlier entry's"],
    [`[{"id": "${PET_A}"}]`, 'entry 0: ownerUserId must be a user id'],
    [`[{"id": "${PET_A}", "ownerUserId": "ana smith"}]`, 'entry 0: ownerUserId must be a user id'],
    [`[{"id": "${PET_A}", "ownerUserId": "ana", "sharedWith": "ben"}]`, 'entry 0: sharedWith must be an array of user ids'],
    [`[{"id": "${PET_A}", "ownerUserId": "ana", "owner": "ben"}]`, 'entry 0: unknown field owner'],
  ])('refuses %s, naming the entry and the field', (raw, problem) => {
    expect(() => parsePetSeed(raw)).toThrow(problem);
  });

  it('refuses a seed larger than it holds in memory', () => {
    const many = Array.from({ length: MAX_SEED_PETS + 1 }, () => ({}));
    expect(() => parsePetSeed(JSON.stringify(many))).toThrow(`must hold at most ${MAX_SEED_PETS} pets`);
  });
});
