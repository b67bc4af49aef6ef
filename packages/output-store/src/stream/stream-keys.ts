import { createHash } from 'node:crypto';
import type { IdempotencyScope } from '../types.js';

/** Label every part of a stream carries: the stream's id (see {@link streamId}). */
export const streamLabel = 'wharf.stream';
/** Label every part of a stream carries: the attempt it belongs to (a decimal integer). */
export const streamAttemptLabel = 'wharf.stream.attempt';
/** Label of a chunk: its sequence number in its attempt, from 0. */
export const streamSeqLabel = 'wharf.stream.seq';
/** Label of every part: what it is (see {@link StreamPart}). */
export const streamPartLabel = 'wharf.stream.part';
/** Label of a seal: how many chunks its attempt had. */
export const streamChunksLabel = 'wharf.stream.chunks';

/**
 * What one output of a stream is: the `open` marker of an attempt, one of its `chunk`s, the
 * `seal` (the whole output), the `sealed` marker naming it, or the `abandoned` marker.
 *
 * @example
 * ```ts
 * const part: StreamPart = record.labels[streamPartLabel] as StreamPart;
 * ```
 */
export type StreamPart = 'open' | 'chunk' | 'seal' | 'sealed' | 'abandoned';

/** Content type of the small JSON markers (`open`, `sealed`, `abandoned`). */
export const streamMarkerContentType = 'application/json';

const streamIdPattern = /^str_[A-Za-z0-9_-]{22}$/;

/**
 * The id of the stream a producer writes under `key`: `str_` and 22 base64url characters of
 * the SHA-256 of owner, run, spawn and key. The same scope and key always give the same id, so
 * a writer, a reader that knows the key and `wharf outputs tail <id>` all find the same parts.
 *
 * @example
 * ```ts
 * streamId({ ownerId: 'team-a', runId: 'run-7', spawnId: 'draft' }, 'run-7/draft/final-text'); // 'str_…'
 * ```
 */
export function streamId(scope: IdempotencyScope, key: string): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([scope.ownerId, scope.runId, scope.spawnId, key]))
    .digest('base64url');
  return `str_${digest.slice(0, 22)}`;
}

/**
 * True for a string shaped as a {@link streamId}.
 *
 * @example
 * ```ts
 * isStreamId('str_AAAAAAAAAAAAAAAAAAAAAA'); // true
 * isStreamId('out_3fZ8kQ1xP0aLm2Vb'); // false
 * ```
 */
export function isStreamId(value: string): boolean {
  return streamIdPattern.test(value);
}

/**
 * The idempotency keys of a stream's parts, derived from the key of the whole output: the seal
 * is stored under `key` itself (the key a non-streamed write of the same output uses), every
 * other part under `<key>/wharf.stream/<attempt>/…`, so a retried write of a part is the same
 * output.
 *
 * @example
 * ```ts
 * streamPartKey('run-7/draft/final-text', 2, 'chunk', 5); // 'run-7/draft/final-text/wharf.stream/2/chunk/5'
 * ```
 */
export function streamPartKey(
  key: string,
  attempt: number,
  part: Exclude<StreamPart, 'seal'>,
  seq?: number,
): string {
  const base = `${key}/wharf.stream/${attempt}`;
  return part === 'chunk' ? `${base}/chunk/${seq ?? 0}` : `${base}/${part}`;
}

/**
 * The key of the whole output a part's idempotency key was derived from (see
 * {@link streamPartKey}), or undefined for a key that is not a stream part's.
 *
 * @example
 * ```ts
 * keyOfStreamPart('k/wharf.stream/1/open'); // 'k'
 * ```
 */
export function keyOfStreamPart(partKey: string): string | undefined {
  return /^(.*)\/wharf\.stream\/\d+\/(?:open|sealed|abandoned|chunk\/\d+)$/s.exec(partKey)?.[1];
}

/**
 * True when a label key is one of the stream labels only the stream writer sets.
 *
 * @example
 * ```ts
 * isStreamLabel('wharf.stream.seq'); // true
 * ```
 */
export function isStreamLabel(key: string): boolean {
  return key === streamLabel || key.startsWith(`${streamLabel}.`);
}
