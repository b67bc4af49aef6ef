const INITIAL_SIZE = 64 * 1024;

/**
 * Fixed-capacity ring buffer that keeps the last `capacity` bytes written to it. Storage grows
 * geometrically up to `capacity` and never beyond, so memory is bounded whatever is written.
 *
 * @example
 * ```ts
 * const ring = new TailRing(4);
 * ring.write(Buffer.from('abcdef'));
 * ring.toBuffer().toString(); // 'cdef'
 * ```
 */
export class TailRing {
  readonly capacity: number;
  #buffer: Buffer = Buffer.alloc(0);
  #start = 0;
  #length = 0;

  constructor(capacity: number) {
    this.capacity = capacity;
  }

  /** Bytes currently held (at most `capacity`). */
  get length(): number {
    return this.#length;
  }

  /** Appends bytes, dropping the oldest ones beyond `capacity`. */
  write(chunk: Uint8Array): void {
    const capacity = this.capacity;
    if (capacity === 0 || chunk.length === 0) return;
    if (chunk.length >= capacity) {
      this.#ensure(capacity);
      this.#buffer.set(chunk.subarray(chunk.length - capacity));
      this.#start = 0;
      this.#length = capacity;
      return;
    }
    if (this.#buffer.length < capacity && this.#length + chunk.length > this.#buffer.length) {
      this.#ensure(
        Math.min(capacity, Math.max(this.#buffer.length * 2, this.#length + chunk.length, INITIAL_SIZE)),
      );
    }
    const size = this.#buffer.length;
    const end = (this.#start + this.#length) % size;
    const first = Math.min(chunk.length, size - end);
    this.#buffer.set(chunk.subarray(0, first), end);
    if (first < chunk.length) this.#buffer.set(chunk.subarray(first), 0);
    const overflow = this.#length + chunk.length - size;
    if (overflow > 0) {
      this.#start = (this.#start + overflow) % size;
      this.#length = size;
    } else {
      this.#length += chunk.length;
    }
  }

  /** The held bytes, oldest first, as one new buffer. */
  toBuffer(): Buffer {
    const size = this.#buffer.length;
    if (this.#start + this.#length <= size) {
      return Buffer.from(this.#buffer.subarray(this.#start, this.#start + this.#length));
    }
    const head = this.#buffer.subarray(this.#start);
    return Buffer.concat([head, this.#buffer.subarray(0, this.#length - head.length)]);
  }

  /** Grows linear (not yet wrapped) storage to `size` bytes. */
  #ensure(size: number): void {
    if (this.#buffer.length >= size) return;
    const next = Buffer.allocUnsafe(size);
    this.#buffer.copy(next, 0, this.#start, this.#start + this.#length);
    this.#buffer = next;
    this.#start = 0;
  }
}
