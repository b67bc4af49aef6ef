/** Bounds of {@link SharedReads}. */
export interface SharedReadsOptions {
  /** Values kept (the most recently used). */
  maxEntries: number;
  /** Bytes of values kept in all, as `bytesOf` sizes them. */
  maxBytes: number;
  /** How long a value is reused, in milliseconds. */
  ttlMs: number;
  /** The clock; default `Date.now`. */
  now?: () => number;
}

interface Entry<T> {
  at: number;
  bytes: number;
  value: Promise<T>;
}

/**
 * Values a worker reads once and hands to every caller asking for the same key within `ttlMs`
 * (concurrent callers wait for the one read), the least recently used dropped past either bound
 * (the newest always stays). A value is sized once read; a failed read is not kept. What
 * {@link SubagentContexts} and {@link MapItemReads} share: stored outputs never change, so a
 * map's instances can share what they read of them, for a while.
 *
 * @example
 * ```ts
 * const reads = new SharedReads<string>({ maxEntries: 64, maxBytes: 1 << 24, ttlMs: 60_000 });
 * const text = await reads.get(key, () => render(plan), (value) => value.length);
 * ```
 */
export class SharedReads<T> {
  readonly #options: SharedReadsOptions;
  readonly #now: () => number;
  /** Least recently used first. */
  readonly #entries = new Map<string, Entry<T>>();
  #bytes = 0;

  constructor(options: SharedReadsOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** The value of `key`, read by `read` now or reused; `bytesOf` sizes it once read. */
  async get(key: string, read: () => Promise<T>, bytesOf: (value: T) => number): Promise<T> {
    const now = this.#now();
    const found = this.#entries.get(key);
    if (found !== undefined) {
      this.#drop(key, found);
      if (now - found.at < this.#options.ttlMs) {
        this.#keep(key, found);
        return found.value;
      }
    }
    const entry: Entry<T> = { at: now, bytes: 0, value: read() };
    this.#keep(key, entry);
    try {
      const value = await entry.value;
      if (this.#entries.get(key) === entry) {
        this.#bytes -= entry.bytes;
        entry.bytes = bytesOf(value);
        this.#bytes += entry.bytes;
        this.#trim();
      }
      return value;
    } catch (error) {
      if (this.#entries.get(key) === entry) this.#drop(key, entry);
      throw error;
    }
  }

  #keep(key: string, entry: Entry<T>): void {
    this.#entries.set(key, entry);
    this.#bytes += entry.bytes;
    this.#trim();
  }

  #drop(key: string, entry: Entry<T>): void {
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
  }

  /** The least recently used go first, until both bounds hold (the newest always stays). */
  #trim(): void {
    for (const [key, entry] of this.#entries) {
      if (this.#entries.size <= 1) break;
      if (this.#entries.size <= this.#options.maxEntries && this.#bytes <= this.#options.maxBytes) break;
      this.#drop(key, entry);
    }
  }
}
