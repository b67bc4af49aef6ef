import type { ByteRange, OutputRecord, OutputRef, OutputStore } from './types.js';

/** A body (or a byte range of it) read into memory, with the record and the range served. */
export interface ReadBody {
  readonly record: OutputRecord;
  readonly start: number;
  readonly end: number;
  readonly bytes: Buffer;
}

/**
 * Reads a stored body, or a byte range of it, into memory. For small reads (previews, a
 * context's budget, a model's page of an input); stream large bodies with `openBody`.
 *
 * @example
 * ```ts
 * const { bytes, record } = await readBody(store, ref, { start: 0, end: 4096 });
 * console.log(`${bytes.length} of ${record.sizeBytes} bytes`);
 * ```
 */
export async function readBody(
  store: Pick<OutputStore, 'openBody'>,
  ref: OutputRef,
  range?: ByteRange,
): Promise<ReadBody> {
  const body = await store.openBody(ref, range);
  const chunks: Uint8Array[] = [];
  for await (const chunk of body.stream) chunks.push(chunk as Uint8Array);
  return { record: body.record, start: body.start, end: body.end, bytes: Buffer.concat(chunks) };
}
