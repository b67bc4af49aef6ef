import type { OutputStore } from '../types.js';
import { readStream, type StreamTarget } from './read-stream.js';

/**
 * What {@link compactStream} removed: chunk outputs and their bytes.
 *
 * @example
 * ```ts
 * const { removed, freedBytes }: CompactStreamResult = await compactStream(store, { stream: id });
 * ```
 */
export interface CompactStreamResult {
  readonly removed: number;
  readonly freedBytes: number;
}

/**
 * Deletes the chunks a stream no longer needs: those of a sealed attempt (its seal holds the
 * same bytes) and of attempts that are not current and were never sealed (abandoned or
 * superseded: never part of the stream's text). The current attempt's chunks, while it is open,
 * stay; the seal and the small markers stay too, so readers still see every attempt and its
 * state, and a compacted sealed attempt reads as its seal. Nothing else removes chunks early:
 * otherwise they are ordinary outputs of the producer's run and go with the store's retention
 * and gc as any output does.
 *
 * @example
 * ```ts
 * const ref = await writer.seal();
 * const { removed } = await compactStream(store, { producer, key: 'answer' });
 * ```
 */
export async function compactStream(store: OutputStore, target: StreamTarget): Promise<CompactStreamResult> {
  const snapshot = await readStream(store, target);
  let removed = 0;
  let freedBytes = 0;
  for (const attempt of snapshot.attempts) {
    if (attempt.state === 'open') continue;
    for (const chunk of attempt.chunks) {
      if (await store.delete({ outId: chunk.outId })) {
        removed++;
        freedBytes += chunk.sizeBytes;
      }
    }
  }
  return { removed, freedBytes };
}
