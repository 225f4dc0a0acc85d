/**
 * A Map that holds at most `limit` entries: setting one more drops the oldest (Maps iterate in
 * insertion order). `recall` reads an entry and makes it the newest, so a map read through it
 * drops the least recently used first; `get` leaves the order as it is.
 */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(private readonly limit: number) {
    super();
  }

  override set(key: K, value: V): this {
    if (this.size >= this.limit && !this.has(key)) {
      const oldest = this.keys().next();
      if (!oldest.done) this.delete(oldest.value);
    }
    return super.set(key, value);
  }

  recall(key: K): V | undefined {
    const value = super.get(key);
    if (value !== undefined) {
      this.delete(key);
      super.set(key, value);
    }
    return value;
  }
}
