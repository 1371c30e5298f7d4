import type { catalogV1 } from '@atelier/contracts';
import { ExpiringCache } from '@atelier/caching';
import type { PromiseClient } from '@atelier/grpc';
import type { CatalogChange } from '@atelier/nats';

/** What CreateJob reads from catalog: a model or a style by id (the peer's errors as they come). */
export interface CatalogReads {
  model(modelId: string): Promise<catalogV1.Model>;
  style(styleId: string): Promise<catalogV1.Style>;
}

export interface CatalogCacheOptions {
  /** How long an entry is served without asking catalog again; 0 asks every time (CATALOG_CACHE_TTL_MS). */
  ttlMs: number;
  /** Entries kept at most, models and styles together (CATALOG_CACHE_MAX_ENTRIES). */
  maxEntries: number;
}

type Entry = catalogV1.Model | catalogV1.Style;

/**
 * A read-through cache of catalog's models and styles for CreateJob. An entry is kept after the
 * first read and dropped when catalog announces a change to it (libs/nats catalog-changes.ts),
 * when the NATS link comes (back) up — notices may have been missed meanwhile — or at its TTL,
 * the backstop that bounds staleness when notices do not arrive at all.
 *
 * Only answers are cached, never errors: NOT_FOUND is asked again on the next create (a model
 * created later is found at once), and a catalog that is down fails each create as before.
 * Concurrent misses of one entry share one request. A read that was under way when its entry
 * was invalidated answers its caller but is not stored: it may predate the change.
 */
export class CatalogCache implements CatalogReads {
  private readonly entries: ExpiringCache<string, Entry>;
  private readonly pending = new Map<string, Promise<Entry>>();
  /** Bumped by every invalidation; a read stores its answer only if none happened since it began. */
  private generation = 0;

  constructor(
    private readonly catalog: Pick<PromiseClient<catalogV1.CatalogServiceClient>, 'getModel' | 'getStyle'>,
    private readonly options: CatalogCacheOptions,
  ) {
    this.entries = new ExpiringCache(options.ttlMs > 0 ? options.maxEntries : 0);
  }

  model(modelId: string): Promise<catalogV1.Model> {
    return this.read(`model:${modelId}`, async () => (await this.catalog.getModel({ modelId })).model!) as Promise<catalogV1.Model>;
  }

  style(styleId: string): Promise<catalogV1.Style> {
    return this.read(`style:${styleId}`, async () => (await this.catalog.getStyle({ styleId })).style!) as Promise<catalogV1.Style>;
  }

  /** Catalog changed this entry: the next read asks catalog. */
  invalidate(change: CatalogChange): void {
    const key = `${change.kind}:${change.id}`;
    this.generation += 1;
    this.entries.delete(key);
    this.pending.delete(key);
  }

  /** Forgets everything (the notices of a while may have been missed). */
  clear(): void {
    this.generation += 1;
    this.entries.clear();
    this.pending.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  private read(key: string, fetch: () => Promise<Entry>): Promise<Entry> {
    const cached = this.entries.get(key);
    if (cached) return Promise.resolve(cached);
    const shared = this.pending.get(key);
    if (shared) return shared;
    const generation = this.generation;
    const reading = fetch().then((entry) => {
      if (this.generation === generation) this.entries.set(key, entry, Date.now() + this.options.ttlMs);
      return entry;
    });
    this.pending.set(key, reading);
    const forget = () => {
      if (this.pending.get(key) === reading) this.pending.delete(key);
    };
    reading.then(forget, forget);
    return reading;
  }
}
