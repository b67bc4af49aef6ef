import type { IdempotencyScope, OutputRecord, OutputStore, Producer } from '../types.js';
import { StreamNotFoundError } from './stream-errors.js';
import {
  isStreamId,
  keyOfStreamPart,
  type StreamPart,
  streamAttemptLabel,
  streamChunksLabel,
  streamId,
  streamLabel,
  streamPartLabel,
  streamSeqLabel,
} from './stream-keys.js';

/**
 * Which stream to read: the producer's scope and the key of the whole output (what the writer
 * was opened with), or the stream's id alone (`str_…`, what `wharf outputs tail` takes).
 *
 * @example
 * ```ts
 * const byKey: StreamTarget = { producer: { ownerId: 'team-a', runId: 'run-7', spawnId: 'draft' }, key: 'answer' };
 * const byId: StreamTarget = { stream: 'str_Vq1…' };
 * ```
 */
export type StreamTarget =
  | { readonly producer: IdempotencyScope; readonly key: string }
  | { readonly stream: string };

/**
 * One stored chunk of an attempt.
 *
 * @example
 * ```ts
 * const { seq, outId, sizeBytes }: StreamChunk = snapshot.current.chunks[0]!;
 * ```
 */
export interface StreamChunk {
  readonly seq: number;
  readonly outId: string;
  readonly sizeBytes: number;
}

/**
 * Where an attempt stands: `open` (being written, or its writer died and no later attempt
 * came), `sealed` (its whole output is stored), `abandoned` (its writer gave up, or a later
 * attempt marked it so when it opened), `superseded` (a later attempt exists and no marker
 * says more).
 *
 * @example
 * ```ts
 * const state: StreamAttemptState = snapshot.current.state;
 * ```
 */
export type StreamAttemptState = 'open' | 'sealed' | 'abandoned' | 'superseded';

/**
 * One attempt of a stream: its chunks in seq order and its state. A sealed attempt names its
 * seal; once compacted (`compactStream`) it has no chunks left and its text is the seal's body.
 *
 * @example
 * ```ts
 * for (const attempt of snapshot.attempts) console.log(attempt.attempt, attempt.state, attempt.chunks.length);
 * ```
 */
export interface StreamAttempt {
  readonly attempt: number;
  readonly state: StreamAttemptState;
  readonly chunks: readonly StreamChunk[];
  /** The whole output, when sealed. */
  readonly sealOutId?: string;
  /** How many chunks the attempt had when it was sealed. */
  readonly sealedChunks?: number;
  /** Why it was abandoned. */
  readonly reason?: string;
  /** True when it is sealed and some of its chunks are gone (compacted). */
  readonly compacted: boolean;
}

/**
 * What is stored of a stream: its id, producer and key, its attempts (oldest first), and the
 * current one: the highest attempt. An earlier attempt's text is never part of the current one.
 *
 * @example
 * ```ts
 * const snapshot: StreamSnapshot = await readStream(store, { stream: 'str_Vq1…' });
 * console.log(snapshot.current.attempt, snapshot.current.state);
 * ```
 */
export interface StreamSnapshot {
  readonly stream: string;
  readonly producer: Producer;
  readonly key: string;
  /** Content type of the current attempt's chunks or seal, when any is stored. */
  readonly contentType?: string;
  readonly attempts: readonly StreamAttempt[];
  readonly current: StreamAttempt;
}

/**
 * The id a {@link StreamTarget} names.
 *
 * @example
 * ```ts
 * targetStreamId({ producer, key: 'answer' }); // 'str_…'
 * ```
 */
export function targetStreamId(target: StreamTarget): string {
  return 'stream' in target ? target.stream : streamId(target.producer, target.key);
}

/**
 * Every stored part of a stream, oldest first. Only parts whose producer and key give back the
 * stream's id are taken, so an output that merely carries the label is never read as a part.
 *
 * @example
 * ```ts
 * const records = await listStreamParts(store, { stream: 'str_Vq1…' });
 * ```
 */
export async function listStreamParts(store: OutputStore, target: StreamTarget): Promise<OutputRecord[]> {
  const id = targetStreamId(target);
  if (!isStreamId(id)) throw new StreamNotFoundError(id, 'not a stream id: str_ and 22 base64url characters');
  const scope =
    'producer' in target
      ? { ownerId: target.producer.ownerId, runId: target.producer.runId, spawnId: target.producer.spawnId }
      : {};
  const records: OutputRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.list({
      ...scope,
      labels: { [streamLabel]: id },
      limit: 1000,
      ...(cursor === undefined ? {} : { cursor }),
    });
    for (const record of page.records) if (isPartOf(record, id)) records.push(record);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return records;
}

/**
 * True when a record is a part of stream `id`: labelled so, and its producer and key give `id`.
 *
 * @example
 * ```ts
 * if (isPartOf(record, id)) parts.push(record);
 * ```
 */
export function isPartOf(record: OutputRecord, id: string): boolean {
  if (record.labels[streamLabel] !== id) return false;
  const part = record.labels[streamPartLabel] as StreamPart | undefined;
  const key = part === 'seal' ? record.idempotencyKey : keyOfStreamPart(record.idempotencyKey);
  return key !== undefined && streamId(record.producer, key) === id;
}

/**
 * The key of the whole output a stream part belongs to.
 *
 * @example
 * ```ts
 * wholeKeyOf(record); // 'answer'
 * ```
 */
export function wholeKeyOf(record: OutputRecord): string {
  return record.labels[streamPartLabel] === 'seal'
    ? record.idempotencyKey
    : (keyOfStreamPart(record.idempotencyKey) ?? record.idempotencyKey);
}

interface AttemptParts {
  chunks: StreamChunk[];
  seal?: OutputRecord;
  sealedMarker?: OutputRecord;
  abandoned?: OutputRecord;
  contentType?: string;
}

async function markerBody(store: OutputStore, record: OutputRecord): Promise<Record<string, unknown>> {
  try {
    const parsed: unknown = JSON.parse(Buffer.from((await store.get(record)).body).toString('utf8'));
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * Reads what is stored of a stream: which attempts exist, which is current (the highest), each
 * one's chunks in seq order and its state. Throws {@link StreamNotFoundError} when nothing is.
 *
 * @example
 * ```ts
 * const snapshot = await readStream(store, { producer, key: 'answer' });
 * if (snapshot.current.state === 'sealed') console.log(snapshot.current.sealOutId);
 * for (const old of snapshot.attempts.slice(0, -1)) console.log(`attempt ${old.attempt}: ${old.state}`);
 * ```
 */
export async function readStream(store: OutputStore, target: StreamTarget): Promise<StreamSnapshot> {
  const id = targetStreamId(target);
  const records = await listStreamParts(store, target);
  const first = records[0];
  if (first === undefined) throw new StreamNotFoundError(id);
  const byAttempt = new Map<number, AttemptParts>();
  for (const record of records) {
    const attempt = Number(record.labels[streamAttemptLabel]);
    if (!Number.isSafeInteger(attempt) || attempt < 0) continue;
    let parts = byAttempt.get(attempt);
    if (parts === undefined) {
      parts = { chunks: [] };
      byAttempt.set(attempt, parts);
    }
    switch (record.labels[streamPartLabel] as StreamPart | undefined) {
      case 'chunk': {
        const seq = Number(record.labels[streamSeqLabel]);
        if (Number.isSafeInteger(seq) && seq >= 0)
          parts.chunks.push({ seq, outId: record.outId, sizeBytes: record.sizeBytes });
        parts.contentType = record.contentType;
        break;
      }
      case 'seal':
        parts.seal = record;
        parts.contentType = record.contentType;
        break;
      case 'sealed':
        parts.sealedMarker = record;
        break;
      case 'abandoned':
        parts.abandoned = record;
        break;
      default:
        break;
    }
  }
  const numbers = [...byAttempt.keys()].sort((a, b) => a - b);
  const highest = numbers.at(-1) ?? 0;
  const attempts: StreamAttempt[] = [];
  for (const attempt of numbers) {
    const parts = byAttempt.get(attempt) as AttemptParts;
    const chunks = parts.chunks.sort((a, b) => a.seq - b.seq);
    let sealOutId = parts.seal?.outId;
    let sealedChunks = parts.seal === undefined ? undefined : Number(parts.seal.labels[streamChunksLabel]);
    if (sealOutId === undefined && parts.sealedMarker !== undefined) {
      const body = await markerBody(store, parts.sealedMarker);
      if (typeof body.outId === 'string') sealOutId = body.outId;
      if (typeof body.chunks === 'number') sealedChunks = body.chunks;
    }
    let reason: string | undefined;
    if (parts.abandoned !== undefined) {
      const body = await markerBody(store, parts.abandoned);
      reason = typeof body.reason === 'string' ? body.reason : undefined;
    }
    const state: StreamAttemptState =
      sealOutId !== undefined
        ? 'sealed'
        : parts.abandoned !== undefined
          ? 'abandoned'
          : attempt < highest
            ? 'superseded'
            : 'open';
    attempts.push({
      attempt,
      state,
      chunks,
      ...(sealOutId === undefined ? {} : { sealOutId }),
      ...(sealedChunks === undefined || !Number.isSafeInteger(sealedChunks) ? {} : { sealedChunks }),
      ...(reason === undefined ? {} : { reason }),
      compacted: sealOutId !== undefined && sealedChunks !== undefined && chunks.length < sealedChunks,
    });
  }
  const current = attempts.at(-1) as StreamAttempt;
  const contentType = byAttempt.get(current.attempt)?.contentType;
  return {
    stream: id,
    producer: first.producer,
    key: wholeKeyOf(first),
    ...(contentType === undefined ? {} : { contentType }),
    attempts,
    current,
  };
}
