import { ListLimitError, UntrustedListError } from '../errors.js';
import type { Manifest, ManifestChunkRef } from './manifest-format.js';

/**
 * Whose stored lists a reader follows: parts stored by `ownerId`, and (when `runIds` is given)
 * by one of those runs — the reading run and its lineage (the run it re-runs, its parent or
 * child swarm). Without `runIds`, any run of the owner (an operator's tool).
 *
 * @example
 * ```ts
 * const scope: ListReadScope = { ownerId: 'team-a', runIds: ['swarm-7', 'swarm-6'] };
 * ```
 */
export interface ListReadScope {
  readonly ownerId: string;
  readonly runIds?: readonly string[];
}

/**
 * How far a reader follows a stored list before it stops with a `ListLimitError`. Wharf's
 * writers stay far inside the defaults: chunks of at most 192 KiB, eight refs a manifest,
 * one nesting level per seven chunks folded.
 *
 * @example
 * ```ts
 * const limits: ListReadLimits = { maxDepth: 64, maxParts: 1_000, maxBytes: 64 * 1024 * 1024 };
 * ```
 */
export interface ListReadLimits {
  /** Nested manifests below the top one. Default 4,096. */
  readonly maxDepth?: number;
  /** Manifests and chunks read in all. Default 200,000. */
  readonly maxParts?: number;
  /** Bytes of all parts read. Default 4 GiB. */
  readonly maxBytes?: number;
  /** Bytes of one part. Default 64 MiB. */
  readonly maxPartBytes?: number;
}

/**
 * Options of the stored-list readers (`manifestChunks`, `manifestEntries`, `manifestRefs`,
 * `indexItems`): whose parts to follow, how far, and a signal that stops the read between parts.
 *
 * @example
 * ```ts
 * const refs = await manifestRefs(store, ref, { scope: { ownerId, runIds: [runId] }, signal });
 * ```
 */
export interface ListReadOptions {
  readonly scope: ListReadScope;
  readonly limits?: ListReadLimits;
  /** Aborting it stops the read before its next part (the signal's reason is thrown). */
  readonly signal?: AbortSignal;
}

/** The defaults of {@link ListReadLimits}. */
export const defaultListReadLimits: Required<ListReadLimits> = Object.freeze({
  maxDepth: 4_096,
  maxParts: 200_000,
  maxBytes: 4 * 1024 ** 3,
  maxPartBytes: 64 * 1024 ** 2,
});

/** One part of a list as its walker asks for it: a manifest or a chunk, by out id. */
export type ListPartKind = 'manifest' | 'chunk';

/**
 * Reads one part for {@link walkList}, checking it is what the walker expects. It calls
 * `admit` with the part's size before reading its body; `admit` throws when that is over a bound.
 */
export type ListPartReader = (
  outId: string,
  kind: ListPartKind,
  admit: (sizeBytes: number) => void,
) => Promise<Buffer>;

/** One chunk of a stored list with its bytes; `parse` turns them into entries. */
export interface WalkedChunk {
  readonly chunk: ManifestChunkRef;
  readonly bytes: Buffer;
}

/**
 * Walks a stored list's chunks in order, iteratively (no generator per nesting level): every
 * part read once at most (a part named twice is refused, so a graph whose levels name the one
 * below twice costs one read per part, not 2^depth), nested manifests' counts checked against
 * the count their parent recorded, the depth, part and byte bounds kept, the signal checked
 * and the event loop given a turn between parts (timers fire during a long read).
 *
 * @example
 * ```ts
 * for await (const { chunk, bytes } of walkList(list, readPart, parse, options)) console.log(chunk.outId, bytes.length);
 * ```
 */
export async function* walkList(
  list: string,
  readPart: ListPartReader,
  parse: (outId: string, text: string) => Manifest,
  options: Pick<ListReadOptions, 'limits' | 'signal'> = {},
): AsyncGenerator<WalkedChunk> {
  const limits = { ...defaultListReadLimits, ...options.limits };
  const seen = new Set<string>([list]);
  let parts = 0;
  let bytes = 0;
  const admit = (outId: string, sizeBytes: number): void => {
    if (sizeBytes > limits.maxPartBytes)
      throw new ListLimitError(
        list,
        'partBytes',
        limits.maxPartBytes,
        `part ${outId} has ${sizeBytes} bytes`,
      );
    if (bytes + sizeBytes > limits.maxBytes)
      throw new ListLimitError(list, 'bytes', limits.maxBytes, `more than ${limits.maxBytes} bytes to read`);
  };
  const read = async (outId: string, kind: ListPartKind): Promise<Buffer> => {
    options.signal?.throwIfAborted();
    await new Promise<void>((resolve) => setImmediate(resolve));
    options.signal?.throwIfAborted();
    parts += 1;
    if (parts > limits.maxParts)
      throw new ListLimitError(list, 'parts', limits.maxParts, `more than ${limits.maxParts} parts`);
    const body = await readPart(outId, kind, (sizeBytes) => admit(outId, sizeBytes));
    admit(outId, body.length);
    bytes += body.length;
    return body;
  };
  const top = parse(list, (await read(list, 'manifest')).toString('utf8'));
  const stack: { chunks: readonly ManifestChunkRef[]; next: number }[] = [{ chunks: top.chunks, next: 0 }];
  while (stack.length > 0) {
    const frame = stack[stack.length - 1] as { chunks: readonly ManifestChunkRef[]; next: number };
    const chunk = frame.chunks[frame.next];
    if (chunk === undefined) {
      stack.pop();
      continue;
    }
    frame.next += 1;
    if (seen.has(chunk.outId))
      throw new UntrustedListError(list, chunk.outId, 'it is named twice in the list');
    seen.add(chunk.outId);
    if (chunk.manifest === true) {
      if (stack.length > limits.maxDepth)
        throw new ListLimitError(
          list,
          'depth',
          limits.maxDepth,
          `manifests nested deeper than ${limits.maxDepth}`,
        );
      const nested = parse(chunk.outId, (await read(chunk.outId, 'manifest')).toString('utf8'));
      if (nested.count !== chunk.count)
        throw new UntrustedListError(
          list,
          chunk.outId,
          `it holds ${nested.count} entries, its parent recorded ${chunk.count}`,
        );
      stack.push({ chunks: nested.chunks, next: 0 });
      continue;
    }
    yield { chunk, bytes: await read(chunk.outId, 'chunk') };
  }
}

/**
 * Why a part's record is not one its reader may follow, or `undefined` when it is: Wharf's
 * own writer's mark for that kind of part, and an owner and run inside the scope.
 *
 * @example
 * ```ts
 * partRefusal(record, 'manifest', { ownerId: 'team-a' }); // undefined, or 'it was not written by Wharf …'
 * ```
 */
export function partRefusal(
  record: {
    readonly contentType: string;
    readonly labels: Readonly<Record<string, string>>;
    readonly producer: { readonly ownerId: string; readonly runId: string };
  },
  expected: { readonly label: string; readonly value: string; readonly contentType: string },
  scope: ListReadScope,
): string | undefined {
  if (record.labels[expected.label] !== expected.value || record.contentType !== expected.contentType)
    return `it is not a ${expected.value} written by Wharf (content type ${record.contentType}, ${expected.label} ${JSON.stringify(record.labels[expected.label] ?? null)})`;
  return scopeRefusal(record.producer, scope);
}

/**
 * Why an output of this producer is outside `scope`, or `undefined` when it is inside.
 *
 * @example
 * ```ts
 * scopeRefusal({ ownerId: 'b', runId: 'r' }, { ownerId: 'a' }); // 'it belongs to another owner'
 * ```
 */
export function scopeRefusal(
  producer: { readonly ownerId: string; readonly runId: string },
  scope: ListReadScope,
): string | undefined {
  if (producer.ownerId !== scope.ownerId) return 'it belongs to another owner';
  if (scope.runIds !== undefined && !scope.runIds.includes(producer.runId))
    return `it was stored by run ${producer.runId}, outside the reading run's lineage`;
  return undefined;
}
