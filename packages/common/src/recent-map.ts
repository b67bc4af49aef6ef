/**
 * A map that keeps at most `capacity` entries: reading or setting a key makes it the most
 * recently used, and past the capacity the least recently used goes (with a capacity of 0,
 * nothing is kept).
 *
 * @example
 * ```ts
 * const tokens = new RecentMap<string, Claims>(1024);
 * tokens.set(token, claims);
 * tokens.get(token); // claims, now the most recently used
 * ```
 */
export class RecentMap<K, V> {
  readonly capacity: number;
  /** Least recently used first. */
  readonly #entries = new Map<K, V>();

  constructor(capacity: number) {
    this.capacity = capacity;
  }

  /** The value of `key`, made the most recently used; undefined when it is not kept. */
  get(key: K): V | undefined {
    const value = this.#entries.get(key);
    if (value !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, value);
    }
    return value;
  }

  /** Keeps `value` under `key` as the most recently used, dropping the least recently used past the capacity. */
  set(key: K, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.capacity) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
  }

  delete(key: K): boolean {
    return this.#entries.delete(key);
  }

  get size(): number {
    return this.#entries.size;
  }
}
