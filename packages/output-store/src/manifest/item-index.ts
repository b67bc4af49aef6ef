import {
  ListItemTooLargeError,
  OutputRangeError,
  StorageFailureError,
  UntrustedListError,
} from '../errors.js';
import { readBody } from '../read-body.js';
import type { OutputRef, OutputStore, Producer } from '../types.js';
import { asWharfWrite, manifestPartLabel } from '../wharf-writes.js';
import { type ListReadOptions, scopeRefusal } from './list-walk.js';
import { itemIndexContentType, manifestContentType } from './manifest-format.js';
import { isManifestRecord, manifestChunks } from './read-manifest.js';
import { BodyScanner, type ItemSpans } from './scan-items.js';

/** Bytes of one item's record in an index: its output id (20 ASCII bytes), start and end (6 bytes each). */
export const ITEM_RECORD_BYTES = 32;
const OUT_ID_BYTES = 20;
const OFFSET_BYTES = 6;

/**
 * How an item reads back: `line`, the line's text trimmed (a string); `json`, the item's bytes
 * parsed as JSON (the elements of a JSON array, the entries of a manifest).
 */
export type ItemFormat = 'line' | 'json';

/** An index over a stored list of items: its ref, how many items, how each reads. */
export interface ItemIndex {
  readonly index: OutputRef;
  readonly count: number;
  readonly format: ItemFormat;
  /** What the source was: non-blank lines, a JSON array, or a manifest's entries. */
  readonly kind: 'lines' | 'json-array' | 'manifest';
}

/** Outcome of {@link indexItems}: the index, or why the source is no list. */
export type IndexItemsResult = ({ ok: true } & ItemIndex) | { ok: false; reason: string };

/** Options of {@link indexItems}. */
export interface IndexItemsOptions {
  /** The stored output whose items are indexed: any body, or a manifest. */
  readonly source: OutputRef;
  /** A manifest source: keep only entries whose `status` is this (`ok`, `failed`). */
  readonly status?: string;
  readonly producer: Producer;
  /** The same key returns the index stored the first time, without reading the source again. */
  readonly idempotencyKey: string;
  /** More items than this is refused with a reason. */
  readonly maxItems: number;
  /** Called with the bytes read so far, after each chunk (to heartbeat a long read). */
  readonly onProgress?: (bytes: number) => void;
  /**
   * Whose outputs may be indexed: the source, and a manifest source's parts (see
   * `ListReadOptions`). Default: the producer's owner and run only.
   */
  readonly scope?: ListReadOptions['scope'];
  /** Bounds of a manifest source's walk (see `ListReadLimits`). */
  readonly limits?: ListReadOptions['limits'];
  /** Aborting it stops the read between chunks. */
  readonly signal?: AbortSignal;
}

/**
 * Reads a stored list once and stores an index of where each item is, so that item `i` is read
 * later with two small range reads (see {@link readItem}) instead of the whole body. A body is
 * its non-blank lines, or the elements of a JSON array when it is exactly one (see
 * `BodyScanner`); a manifest is its entries (optionally only those of one `status`). A body that
 * is neither (binary data, not UTF-8, one JSON object) or holds more than `maxItems` items is not
 * indexed: the result says why, naming the output. The source must be in `options.scope` (by
 * default the producer's owner and run), and a manifest one Wharf wrote, else
 * `UntrustedListError`; the index is marked as Wharf's own write.
 *
 * @example
 * ```ts
 * const items = await indexItems(store, { source: { outId }, producer, idempotencyKey: 'lint/items', maxItems: 1e6 });
 * if (items.ok) console.log(items.count, await readItem(store, items.index, 0, items.format));
 * ```
 */
export async function indexItems(store: OutputStore, options: IndexItemsOptions): Promise<IndexItemsResult> {
  const earlier = await store.findByIdempotencyKey(options.producer, options.idempotencyKey);
  if (earlier !== undefined) {
    const record = await store.stat(earlier);
    const count = record.sizeBytes / ITEM_RECORD_BYTES;
    if (count > options.maxItems)
      return {
        ok: false,
        reason: `the list ${options.source.outId} has ${count} items, more than ${options.maxItems} (max_items)`,
      };
    return {
      ok: true,
      index: earlier,
      count,
      format: record.labels['wharf.format'] === 'json' ? 'json' : 'line',
      kind: (record.labels['wharf.kind'] as ItemIndex['kind'] | undefined) ?? 'lines',
    };
  }
  const scope = listScope(options);
  const record = await store.stat(options.source);
  const source = options.source.outId;
  if (record.contentType === manifestContentType && !isManifestRecord(record))
    throw new UntrustedListError(
      source,
      source,
      'it has a manifest’s content type but Wharf did not write it',
    );
  const refusal = scopeRefusal(record.producer, scope);
  if (refusal !== undefined) throw new UntrustedListError(source, source, refusal);
  let entries: { outIds: string[]; spans: ItemSpans[] };
  let kind: ItemIndex['kind'];
  if (isManifestRecord(record)) {
    const found = await manifestSpans(store, options);
    if (!found.ok) return found;
    entries = found;
    kind = 'manifest';
  } else {
    const scanner = new BodyScanner(options.maxItems);
    const body = await store.openBody(options.source);
    try {
      for await (const chunk of body.stream) {
        const more = scanner.push(chunk as Uint8Array);
        options.onProgress?.(scanner.bytes);
        if (!more) break;
      }
    } finally {
      body.stream.destroy();
    }
    const shape = scanner.end();
    if (shape.kind === 'refused')
      return { ok: false, reason: `the body of ${options.source.outId} is ${shape.reason}` };
    entries = { outIds: [options.source.outId], spans: [shape.spans] };
    kind = shape.kind;
  }
  const count = entries.spans.reduce((sum, spans) => sum + spans.starts.length, 0);
  const bytes = Buffer.alloc(count * ITEM_RECORD_BYTES);
  let position = 0;
  entries.spans.forEach((spans, part) => {
    const outId = entries.outIds[part] as string;
    if (outId.length > OUT_ID_BYTES)
      throw new StorageFailureError(
        `output id ${outId} is longer than ${OUT_ID_BYTES} characters: it cannot be indexed`,
      );
    for (let item = 0; item < spans.starts.length; item++, position += ITEM_RECORD_BYTES) {
      bytes.write(outId.padEnd(OUT_ID_BYTES), position, 'latin1');
      bytes.writeUIntBE(spans.starts[item] as number, position + OUT_ID_BYTES, OFFSET_BYTES);
      bytes.writeUIntBE(spans.ends[item] as number, position + OUT_ID_BYTES + OFFSET_BYTES, OFFSET_BYTES);
    }
  });
  const format: ItemFormat = kind === 'lines' ? 'line' : 'json';
  const index = await store.emit(
    asWharfWrite({
      producer: options.producer,
      content: { kind: 'bytes', bytes },
      idempotencyKey: options.idempotencyKey,
      contentType: itemIndexContentType,
      name: `items of ${options.source.outId}`,
      labels: {
        [manifestPartLabel]: 'index',
        'wharf.format': format,
        'wharf.kind': kind,
        'wharf.source': options.source.outId,
      },
    }),
  );
  return { ok: true, index, count, format, kind };
}

/** Whose outputs an index may be made of: the options' scope, else its producer's owner and run. */
function listScope(options: IndexItemsOptions): ListReadOptions['scope'] {
  return options.scope ?? { ownerId: options.producer.ownerId, runIds: [options.producer.runId] };
}

/** The entries of a manifest (of one status, if asked) as spans of its chunks' lines. */
async function manifestSpans(
  store: OutputStore,
  options: IndexItemsOptions,
): Promise<{ ok: true; outIds: string[]; spans: ItemSpans[] } | { ok: false; reason: string }> {
  const outIds: string[] = [];
  const spans: ItemSpans[] = [];
  let count = 0;
  const walk = manifestChunks(store, options.source, {
    scope: listScope(options),
    ...(options.limits === undefined ? {} : { limits: options.limits }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  for await (const { chunk, bytes, entries } of walk) {
    const found: ItemSpans = { starts: [], ends: [] };
    let start = 0;
    let line = 0;
    while (start < bytes.length) {
      let end = bytes.indexOf(0x0a, start);
      if (end === -1) end = bytes.length;
      if (end > start) {
        const entry = entries[line];
        line += 1;
        if (
          options.status === undefined ||
          (entry as { status?: unknown } | null)?.status === options.status
        ) {
          found.starts.push(start);
          found.ends.push(end);
        }
      }
      start = end + 1;
    }
    count += found.starts.length;
    if (count > options.maxItems)
      return {
        ok: false,
        reason: `the list ${options.source.outId} has more than ${options.maxItems} items (max_items)`,
      };
    options.onProgress?.(count);
    outIds.push(chunk.outId);
    spans.push(found);
  }
  return { ok: true, outIds, spans };
}

/**
 * Most bytes one item of a stored list may have for {@link readItem} (16 MiB): an item costs
 * about four times its size in memory while it is read and decoded.
 */
export const defaultMaxItemBytes = 16 * 2 ** 20;

/**
 * Options of {@link readItem}.
 *
 * @example
 * ```ts
 * const options: ReadItemOptions = { maxItemBytes: 64 * 2 ** 20 };
 * ```
 */
export interface ReadItemOptions {
  /** A larger item is refused with `ListItemTooLargeError`; default {@link defaultMaxItemBytes}. */
  readonly maxItemBytes?: number;
}

/**
 * Item `position` of an indexed list: one range read of its record in the index, one of its
 * bytes in the body, decoded as the index's `format` says. A position past the end is an
 * `OutputRangeError`; an item larger than `maxItemBytes` (default 16 MiB) a
 * `ListItemTooLargeError` naming it, known from its record before any of its bytes are read.
 *
 * @example
 * ```ts
 * const item = await readItem(store, { outId: indexId }, 41, 'line'); // 'src/app.ts'
 * ```
 */
export async function readItem(
  store: Pick<OutputStore, 'openBody'>,
  index: OutputRef,
  position: number,
  format: ItemFormat,
  options: ReadItemOptions = {},
): Promise<unknown> {
  const start = position * ITEM_RECORD_BYTES;
  const { bytes: record } = await readBody(store, index, { start, end: start + ITEM_RECORD_BYTES }).catch(
    (error: unknown) => {
      if (OutputRangeError.isInstance(error))
        throw new OutputRangeError({ start, end: start + ITEM_RECORD_BYTES }, error.sizeBytes);
      throw error;
    },
  );
  const outId = record.toString('latin1', 0, OUT_ID_BYTES).trimEnd();
  const from = record.readUIntBE(OUT_ID_BYTES, OFFSET_BYTES);
  const to = record.readUIntBE(OUT_ID_BYTES + OFFSET_BYTES, OFFSET_BYTES);
  const limitBytes = options.maxItemBytes ?? defaultMaxItemBytes;
  if (to - from > limitBytes)
    throw new ListItemTooLargeError({ list: outId, position, sizeBytes: to - from, limitBytes });
  const { bytes } = await readBody(store, { outId }, { start: from, end: to });
  const text = bytes.toString('utf8');
  return format === 'line' ? text.trim() : JSON.parse(text);
}
