/**
 * A streamed EMIT body that can be sent again: the chunks read so far are kept up to
 * `maxBytes`, and each {@link ReplayableBody.stream} replays them before reading on. Cancelling
 * a stream (the intake answered before reading the body) leaves the source open for the next
 * attempt; {@link ReplayableBody.close} ends it.
 *
 * @example
 * ```ts
 * const body = new ReplayableBody(process.stdin, 4 << 20);
 * await fetch(url, { method: 'POST', body: body.stream(), duplex: 'half' });
 * if (body.replayable) await fetch(url, { method: 'POST', body: body.stream(), duplex: 'half' });
 * ```
 */
export class ReplayableBody {
  readonly #iterator: AsyncIterator<Uint8Array>;
  readonly #maxBytes: number;
  #kept: Uint8Array[] = [];
  #keptBytes = 0;
  #overflowed = false;
  #done = false;
  #generation = 0;

  constructor(source: AsyncIterable<Uint8Array>, maxBytes: number) {
    this.#iterator = source[Symbol.asyncIterator]();
    this.#maxBytes = maxBytes;
  }

  /** False once more than `maxBytes` were read: the start of the body is no longer kept. */
  get replayable(): boolean {
    return !this.#overflowed;
  }

  /** A new stream of the whole body; any earlier stream stops at once. */
  stream(): ReadableStream<Uint8Array> {
    const generation = ++this.#generation;
    let index = 0;
    return new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        if (generation !== this.#generation) return controller.close();
        const kept = this.#kept[index];
        if (kept !== undefined) {
          index += 1;
          return controller.enqueue(kept);
        }
        if (this.#done) return controller.close();
        const next = await this.#iterator.next();
        if (generation !== this.#generation) return controller.close();
        if (next.done) {
          this.#done = true;
          return controller.close();
        }
        this.#keep(next.value);
        index = this.#kept.length;
        controller.enqueue(next.value);
      },
    });
  }

  /**
   * Ends the source (for example after the last attempt), without waiting for it to end: a
   * source stalled in the middle of producing a chunk (the very reason the intake cut its
   * upload) ends only once that chunk comes, and the caller would wait as long.
   */
  async close(): Promise<void> {
    this.#generation += 1;
    if (!this.#done) this.#iterator.return?.()?.catch(() => undefined);
  }

  #keep(chunk: Uint8Array): void {
    if (this.#overflowed) return;
    this.#keptBytes += chunk.byteLength;
    if (this.#keptBytes > this.#maxBytes) {
      this.#overflowed = true;
      this.#kept = [];
      return;
    }
    this.#kept.push(chunk);
  }
}
