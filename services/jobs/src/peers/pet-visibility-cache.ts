import { ExpiringCache } from '@atelier/caching';
import type { PetDirectory } from './pet-directory.js';

export interface PetVisibilityCacheOptions {
  /** How long a "visible" answer is reused (PET_DIRECTORY_CACHE_TTL_MS); 0: the pet service is asked every time. */
  ttlMs: number;
  /** (user, pet) pairs kept at most, the oldest dropped first (PET_DIRECTORY_CACHE_MAX_ENTRIES). */
  maxEntries: number;
}

/**
 * A short memory of the pet service's positive answers, keyed by (user, pet), so that a user
 * creating job after job for their pet does not ask the pet service each time, and a short
 * outage of it does not stop them. Why it is safe:
 * - only "visible" is remembered, for ttlMs at most: a pet unshared or given away is refused to
 *   new creates within ttlMs; "not visible" is never remembered, so a pet shared a moment ago
 *   is visible at once;
 * - an entry holds a user id and a pet id that the user sent, nothing the pet service told
 *   about the pet beyond "yes", and is never shown to anyone;
 * - the pet service stays the authority: every answer comes from it, none is made up here.
 * Errors are not remembered either. Concurrent questions about one pair share one call.
 */
export class PetVisibilityCache implements PetDirectory {
  private readonly confirmed: ExpiringCache<string, true>;
  private readonly pending = new Map<string, Promise<boolean>>();

  constructor(
    private readonly directory: PetDirectory,
    private readonly options: PetVisibilityCacheOptions,
  ) {
    this.confirmed = new ExpiringCache(options.ttlMs > 0 ? options.maxEntries : 0);
  }

  get size(): number {
    return this.confirmed.size;
  }

  isVisible(userId: string, petId: string): Promise<boolean> {
    // A user id never holds a space (USER_ID_PATTERN): the pair cannot be read two ways.
    const key = `${userId} ${petId}`;
    if (this.confirmed.get(key)) return Promise.resolve(true);
    const shared = this.pending.get(key);
    if (shared) return shared;
    const asking = this.directory.isVisible(userId, petId).then((visible) => {
      if (visible) this.confirmed.set(key, true, Date.now() + this.options.ttlMs);
      return visible;
    });
    this.pending.set(key, asking);
    const forget = () => {
      if (this.pending.get(key) === asking) this.pending.delete(key);
    };
    asking.then(forget, forget);
    return asking;
  }
}
