/**
 * A bounded map whose entries stop being returned at their own deadline. When full, the entry
 * stored longest ago goes first (insertion order; a re-set moves an entry to the back). Meant
 * for values that are cheap to recompute but not free: verified tokens, presigned URLs.
 */
export class ExpiringCache<K, V> {
  private readonly entries = new Map<K, { value: V; validUntilMs: number }>();

  constructor(private readonly maxEntries: number) {
    if (!Number.isInteger(maxEntries) || maxEntries < 0) throw new RangeError('maxEntries must be a whole number ≥ 0');
  }

  get size(): number {
    return this.entries.size;
  }

  /** The value while `now < validUntilMs`; an expired entry is dropped on the way. */
  get(key: K, now = Date.now()): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (now < entry.validUntilMs) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  set(key: K, value: V, validUntilMs: number): void {
    if (this.maxEntries === 0) return;
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as K);
    this.entries.set(key, { value, validUntilMs });
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}
