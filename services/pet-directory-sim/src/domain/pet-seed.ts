import { MAX_USER_ID_LENGTH, USER_ID_PATTERN, isUuid } from '@atelier/validation';

/** One pet as the simulator knows it: who owns it and whom its owner shared it with. */
export interface SeedPet {
  /** A UUID, as the app's pet service names pets. */
  id: string;
  ownerUserId: string;
  /** Users the owner shared the pet with (family members): they may see it too. */
  sharedWith: readonly string[];
}

/** How a user relates to a pet (atelier.pets.v1 PetRelation). */
export type PetRelation = 'owner' | 'shared' | 'none';

/** At most this many pets in a seed: the simulator holds them in memory. */
export const MAX_SEED_PETS = 10_000;

/**
 * Reads a seed — a JSON array of `{ "id", "ownerUserId", "sharedWith"? }` — or throws an Error
 * that names the entry and the field at fault. It never quotes a value: seeds hold user ids.
 */
export function parsePetSeed(text: string): SeedPet[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error('must be JSON: an array of { "id", "ownerUserId", "sharedWith" } objects');
  }
  if (!Array.isArray(parsed)) throw new Error('must be a JSON array of { "id", "ownerUserId", "sharedWith" } objects');
  if (parsed.length > MAX_SEED_PETS) throw new Error(`must hold at most ${MAX_SEED_PETS} pets, got ${parsed.length}`);
  const ids = new Set<string>();
  return parsed.map((entry: unknown, index): SeedPet => {
    const at = `entry ${index}`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw new Error(`${at}: must be an object`);
    const { id, ownerUserId, sharedWith = [], ...rest } = entry as Record<string, unknown>;
    const stray = Object.keys(rest);
    if (stray.length > 0) throw new Error(`${at}: unknown field ${stray[0]} (allowed: id, ownerUserId, sharedWith)`);
    if (typeof id !== 'string' || !isUuid(id)) throw new Error(`${at}: id must be a UUID`);
    if (ids.has(id.toLowerCase())) throw new Error(`${at}: id repeats an earlier entry's`);
    ids.add(id.toLowerCase());
    if (!isUserId(ownerUserId))
      throw new Error(`${at}: ownerUserId must be a user id (1–${MAX_USER_ID_LENGTH} letters, digits, . _ : @ | -)`);
    if (!Array.isArray(sharedWith) || !sharedWith.every(isUserId))
      throw new Error(`${at}: sharedWith must be an array of user ids (1–${MAX_USER_ID_LENGTH} letters, digits, . _ : @ | -)`);
    return { id: id.toLowerCase(), ownerUserId, sharedWith: [...new Set(sharedWith)] };
  });
}

function isUserId(value: unknown): value is string {
  return typeof value === 'string' && USER_ID_PATTERN.test(value);
}

/** The seeded pets, indexed for the one question the pet service answers. */
export class SeededPets {
  private readonly byId: ReadonlyMap<string, { ownerUserId: string; sharedWith: ReadonlySet<string> }>;

  constructor(pets: readonly SeedPet[]) {
    this.byId = new Map(pets.map((pet) => [pet.id.toLowerCase(), { ownerUserId: pet.ownerUserId, sharedWith: new Set(pet.sharedWith) }]));
  }

  get size(): number {
    return this.byId.size;
  }

  /** The user's relation to the pet; an unknown pet is `none`, exactly like someone else's. */
  relationOf(userId: string, petId: string): PetRelation {
    const pet = this.byId.get(petId.toLowerCase());
    if (!pet) return 'none';
    if (pet.ownerUserId === userId) return 'owner';
    return pet.sharedWith.has(userId) ? 'shared' : 'none';
  }
}
