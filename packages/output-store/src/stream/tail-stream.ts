import type { IdempotencyScope, OutputRecord, OutputRef, OutputStore } from '../types.js';
import { readStream, type StreamAttemptState, type StreamTarget } from './read-stream.js';
import { StreamCompactedError } from './stream-errors.js';
import { streamAttemptLabel, streamLabel, streamPartKey, streamPartLabel } from './stream-keys.js';

/**
 * What {@link tailStream} yields, in order:
 * - `attempt`: the attempt followed from here on (first, and again when a later attempt
 *   replaces it); `previous` is the one it replaces (whose text is not part of this one's);
 * - `chunk`: the next chunk of the followed attempt (`seq` from 0, no gaps, no repeats);
 * - `abandoned`: the followed attempt was abandoned (tailing goes on, for a later attempt);
 * - `sealed`: the followed attempt is sealed, `ref` its whole output; the tail ends.
 *
 * @example
 * ```ts
 * for await (const event of tailStream(store, { stream: id })) {
 *   if (event.type === 'chunk') process.stdout.write(event.bytes);
 * }
 * ```
 */
export type StreamEvent =
  | {
      readonly type: 'attempt';
      readonly attempt: number;
      readonly previous?: {
        readonly attempt: number;
        readonly state: StreamAttemptState;
        readonly reason?: string;
      };
    }
  | { readonly type: 'chunk'; readonly attempt: number; readonly seq: number; readonly bytes: Uint8Array }
  | { readonly type: 'abandoned'; readonly attempt: number; readonly reason?: string }
  | { readonly type: 'sealed'; readonly attempt: number; readonly ref: OutputRef };

/**
 * Options of {@link tailStream}.
 *
 * @example
 * ```ts
 * const options: TailStreamOptions = { after: { attempt: 2, seq: 14 }, signal: AbortSignal.timeout(60_000) };
 * ```
 */
export interface TailStreamOptions {
  /**
   * Resume after this chunk: its chunks after `seq` follow, when `attempt` is still current;
   * else the current attempt from its first chunk (after an `attempt` event).
   */
  readonly after?: { readonly attempt: number; readonly seq: number };
  /** Wait for new chunks until sealed or aborted (default true); false: what is stored now. */
  readonly follow?: boolean;
  /** How long to wait between looks when nothing new is stored (default 50 ms). */
  readonly intervalMs?: number;
  /** Stops the tail (the iterator ends, no error). */
  readonly signal?: AbortSignal;
}

/** Default {@link TailStreamOptions.intervalMs}. */
export const defaultTailIntervalMs = 50;

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted === true) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

async function markerBody(store: OutputStore, ref: OutputRef): Promise<Record<string, unknown>> {
  try {
    const parsed: unknown = JSON.parse(Buffer.from((await store.get(ref)).body).toString('utf8'));
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

async function highestAttempt(
  store: OutputStore,
  scope: IdempotencyScope,
  stream: string,
  atLeast: number,
): Promise<number> {
  let highest = atLeast;
  let cursor: string | undefined;
  do {
    const page = await store.list({
      ...scope,
      labels: { [streamLabel]: stream, [streamPartLabel]: 'open' },
      limit: 1000,
      ...(cursor === undefined ? {} : { cursor }),
    });
    for (const record of page.records as OutputRecord[]) {
      const attempt = Number(record.labels[streamAttemptLabel]);
      if (Number.isSafeInteger(attempt) && attempt > highest) highest = attempt;
    }
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return highest;
}

/**
 * Follows a stream's current attempt chunk by chunk, as it is written: each chunk once, in seq
 * order; polling every `intervalMs` while nothing new is stored (a look is a lookup by key, so it
 * costs the same however long the stream is). When a later attempt opens, it says so and
 * follows that one from its start; an earlier attempt's text is never mixed in. Ends when the
 * followed attempt is sealed, when `signal` fires, or (with `follow: false`) when it has
 * yielded what is stored. Throws `StreamNotFoundError` when nothing of the stream is stored,
 * and `StreamCompactedError` when asked to resume inside a compacted attempt.
 *
 * @example
 * ```ts
 * const controller = new AbortController();
 * let last: { attempt: number; seq: number } | undefined;
 * for await (const event of tailStream(store, { producer, key: 'answer' }, { signal: controller.signal })) {
 *   if (event.type === 'attempt' && event.previous) console.error(`attempt ${event.attempt} replaces ${event.previous.attempt}`);
 *   if (event.type === 'chunk') { process.stdout.write(event.bytes); last = event; }
 * }
 * // later, without gaps or repeats: tailStream(store, target, { after: last })
 * ```
 */
export async function* tailStream(
  store: OutputStore,
  target: StreamTarget,
  options: TailStreamOptions = {},
): AsyncGenerator<StreamEvent> {
  const { signal } = options;
  const follow = options.follow ?? true;
  const intervalMs = options.intervalMs ?? defaultTailIntervalMs;
  const snapshot = await readStream(store, target);
  const { stream, key } = snapshot;
  const scope: IdempotencyScope = {
    ownerId: snapshot.producer.ownerId,
    runId: snapshot.producer.runId,
    spawnId: snapshot.producer.spawnId,
  };
  const current = snapshot.current;
  let seq =
    options.after !== undefined && options.after.attempt === current.attempt ? options.after.seq + 1 : 0;
  const previous = snapshot.attempts.at(-2);
  yield {
    type: 'attempt',
    attempt: current.attempt,
    ...(previous === undefined
      ? {}
      : {
          previous: {
            attempt: previous.attempt,
            state: previous.state,
            ...(previous.reason === undefined ? {} : { reason: previous.reason }),
          },
        }),
  };
  let attempt = current.attempt;
  let abandonedSaid = false;
  // A compacted sealed attempt: read from its start, its whole text is the seal's body (one
  // chunk event standing for all); resumed after its last chunk, only the seal is left to say.
  if (current.compacted && current.sealOutId !== undefined) {
    const ref = { outId: current.sealOutId };
    const total = current.sealedChunks ?? 0;
    if (seq > 0 && seq < total) throw new StreamCompactedError(stream, attempt, current.sealOutId);
    if (seq === 0 && total > 0)
      yield { type: 'chunk', attempt, seq: total - 1, bytes: (await store.get(ref)).body };
    yield { type: 'sealed', attempt, ref };
    return;
  }
  while (signal?.aborted !== true) {
    const chunk = await store.findByIdempotencyKey(scope, streamPartKey(key, attempt, 'chunk', seq));
    if (chunk !== undefined) {
      const { body } = await store.get(chunk);
      yield { type: 'chunk', attempt, seq, bytes: body };
      seq++;
      continue;
    }
    // Nothing new: sealed (its chunks were all stored before its marker)? replaced? abandoned?
    const sealed = await store.findByIdempotencyKey(scope, streamPartKey(key, attempt, 'sealed'));
    if (sealed !== undefined) {
      if ((await store.findByIdempotencyKey(scope, streamPartKey(key, attempt, 'chunk', seq))) !== undefined)
        continue;
      const body = await markerBody(store, sealed);
      if (typeof body.outId === 'string') {
        yield { type: 'sealed', attempt, ref: { outId: body.outId } };
        return;
      }
    }
    const abandoned = await store.findByIdempotencyKey(scope, streamPartKey(key, attempt, 'abandoned'));
    if (abandoned !== undefined && !abandonedSaid) {
      abandonedSaid = true;
      const body = await markerBody(store, abandoned);
      yield {
        type: 'abandoned',
        attempt,
        ...(typeof body.reason === 'string' ? { reason: body.reason } : {}),
      };
    }
    const highest = await highestAttempt(store, scope, stream, attempt);
    if (highest > attempt) {
      const state: StreamAttemptState = abandoned === undefined ? 'superseded' : 'abandoned';
      yield { type: 'attempt', attempt: highest, previous: { attempt, state } };
      attempt = highest;
      seq = 0;
      abandonedSaid = false;
      continue;
    }
    if (!follow) return;
    await sleep(intervalMs, signal);
  }
}
