import { ApplicationFailure } from '@temporalio/common';
import {
  indexItems,
  ListItemTooLargeError,
  type ListReadOptions,
  type ListReadScope,
  manifestEntries,
  manifestRefs,
  type OutputStore,
  type Producer,
  readItem,
  writeManifest,
  writeManifestChunk,
} from '@wharf/output-store';
import type { IndexItemsInput, InstanceRecord, ManifestPartInput, SubagentInput } from '@wharf/swarm';
import { isStoredListValue, type StoredListValue, wharfFailureTypes } from '@wharf/swarm';
import { safeId } from './activity-identity.js';
import type { MapItemReads } from './map-item-reads.js';

/** Where a loop's stored results and a map loop's item index live in the store: under its run, as the task's. */
function listProducer(input: { ownerId: string; workflowId: string; task: string }, what: string): Producer {
  return {
    ownerId: safeId(input.ownerId),
    runId: safeId(input.workflowId),
    spawnId: safeId(`${input.task}.${what}`),
    agent: 'wharf',
  };
}

/**
 * Whose stored lists a run's activities follow: its owner's, stored by the run itself or by a
 * run of its lineage (the runs a re-run reads from). A list an agent forged (a `$manifest` or
 * an out id written into its output value) names outputs outside it and is refused.
 *
 * @example
 * ```ts
 * listReadScope({ ownerId: 'default', workflowId: 'swarm-7', readRuns: ['swarm-6'] });
 * // { ownerId: 'default', runIds: ['swarm-7', 'swarm-6'] }
 * ```
 */
export function listReadScope(input: {
  ownerId: string;
  workflowId: string;
  readRuns?: readonly string[] | undefined;
}): ListReadScope {
  return {
    ownerId: safeId(input.ownerId),
    runIds: [safeId(input.workflowId), ...(input.readRuns ?? []).map(safeId)],
  };
}

/**
 * Indexes a map loop's stored list once (`indexItems`; the same source returns the stored index
 * on a retry), or says why it is no list (binary data, one JSON object, over `max_items`).
 *
 * @example
 * ```ts
 * const items = await indexMapItems({ workflowId, ownerId, task: 'lint', source: 'out_…', maxItems: 1e6 }, store);
 * ```
 */
export async function indexMapItems(
  input: IndexItemsInput,
  store: OutputStore,
  onProgress?: (bytes: number) => void,
  signal?: AbortSignal,
): Promise<{ index: string; count: number; format: 'line' | 'json' } | { error: string }> {
  const result = await indexItems(store, {
    source: { outId: input.source },
    scope: listReadScope(input),
    ...(signal === undefined ? {} : { signal }),
    ...(input.status === undefined ? {} : { status: input.status }),
    producer: listProducer(input, 'items'),
    idempotencyKey: `items/${input.source}/${input.status ?? 'all'}`,
    maxItems: input.maxItems,
    ...(onProgress === undefined ? {} : { onProgress }),
  });
  if (!result.ok) return { error: result.reason };
  return { index: result.index.outId, count: result.count, format: result.format };
}

/**
 * Stores one part of a loop's results (a chunk of instance records, or the manifest naming its
 * chunks) under a key of its task and position, so a retried write returns the same out id.
 * Its label is `wharf.task`, not `task`: the list is the run's record of the task's outputs, not
 * one of them (a listing of the task's outputs by `task` does not count it).
 *
 * @example
 * ```ts
 * const outId = await writeResultsPart({ workflowId, ownerId, task: 'fan', part: 'chunk', seq: 0, entries }, store);
 * ```
 */
export async function writeResultsPart(input: ManifestPartInput, store: OutputStore): Promise<string> {
  const producer = listProducer(input, 'results');
  if (input.part === 'chunk') {
    const chunk = await writeManifestChunk(store, {
      producer,
      idempotencyKey: `chunk/${input.seq}`,
      entries: input.entries,
      name: `${input.task} results ${input.seq}`,
      labels: { 'wharf.task': input.task },
    });
    return chunk.outId;
  }
  const ref = await writeManifest(store, {
    producer,
    idempotencyKey: input.seq === undefined ? 'manifest' : `manifest/${input.seq}`,
    chunks: input.chunks,
    name: input.seq === undefined ? `${input.task} results` : `${input.task} results, part ${input.seq}`,
    labels: { 'wharf.task': input.task },
  });
  return ref.outId;
}

/**
 * A subagent's IN_REFS in full: its dependencies' out ids, then those the manifests of its loop
 * dependencies name (read from the store).
 *
 * @example
 * ```ts
 * const inRefs = await expandedInRefs(input, store); // ['out_a', …] (100,000 of them for a wide join)
 * ```
 */
export async function expandedInRefs(
  input: Pick<SubagentInput, 'inRefs' | 'inManifests' | 'ownerId' | 'workflowId' | 'readRuns'>,
  store: OutputStore,
  signal?: AbortSignal,
): Promise<string[]> {
  if (input.inManifests === undefined || input.inManifests.length === 0) return input.inRefs;
  const refs = [...input.inRefs];
  const read = listReadOptions(input, signal);
  for (const manifest of input.inManifests)
    for (const outId of await manifestRefs(store, { outId: manifest }, read)) refs.push(outId);
  return refs;
}

function listReadOptions(
  input: Pick<SubagentInput, 'ownerId' | 'workflowId' | 'readRuns'>,
  signal: AbortSignal | undefined,
): ListReadOptions {
  return { scope: listReadScope(input), ...(signal === undefined ? {} : { signal }) };
}

/** Options of {@link instanceInputs}. */
export interface InstanceInputsOptions {
  /**
   * Stored lists with at most this many entries are expanded into their values; longer ones stay
   * refs (`{ $manifest, count, status }`). Default: all (what scripts get).
   */
  expandUpTo?: number;
  /** Stops a long read between chunks (the activity's cancellation). */
  signal?: AbortSignal;
  /**
   * Where the map item's two range reads go (the worker's {@link MapItemReads}, which serves a
   * map's shared bodies from memory); default the store.
   */
  itemReads?: Pick<OutputStore, 'openBody'>;
}

/**
 * The inputs one instance runs with, as its script or agent sees them: its map `item` read from
 * the store when the loop's list is stored (two range reads; an item over `defaultMaxItemBytes`,
 * 16 MiB, fails the task at once, non-retryably, naming it and the limit), and every stored list among its
 * inputs (a loop's output path) expanded into the array of its instances' values, as a task
 * without a loop writes one (`{ outId, outIds, status, bytes, exitCode, preview }`, plus
 * `message` for a failure), instance order.
 *
 * @example
 * ```ts
 * const inputs = await instanceInputs(input, store); // { all: [{ outId: 'out_…', … }, …], item: 'src/a.ts', index: 3 }
 * ```
 */
export async function instanceInputs(
  input: Pick<
    SubagentInput,
    'inputs' | 'storedItem' | 'instance' | 'task' | 'ownerId' | 'workflowId' | 'readRuns'
  >,
  store: OutputStore,
  options: InstanceInputsOptions = {},
): Promise<Record<string, unknown>> {
  const inputs: Record<string, unknown> = {};
  const read = listReadOptions(input, options.signal);
  for (const [key, value] of Object.entries(input.inputs))
    inputs[key] = await expandValue(value, store, options.expandUpTo ?? Number.POSITIVE_INFINITY, read);
  if (input.storedItem !== undefined) {
    const item = await readItem(
      options.itemReads ?? store,
      { outId: input.storedItem.index },
      input.instance,
      input.storedItem.format,
    ).catch((error: unknown) => {
      // Refused from the index before any byte is read; no retry makes the item smaller.
      if (ListItemTooLargeError.isInstance(error))
        throw ApplicationFailure.nonRetryable(
          `task ${input.task}: ${error.message}`,
          wharfFailureTypes.invalidDefinition,
        );
      throw error;
    });
    // An item that is itself a loop's record reads as a task output value, as an expanded list's entries do.
    inputs.item = isInstanceRecord(item) ? outputValue(item) : item;
  }
  return inputs;
}

/** A value with every stored list in it (at any depth) replaced by its values. */
async function expandValue(
  value: unknown,
  store: OutputStore,
  upTo: number,
  read: ListReadOptions,
): Promise<unknown> {
  if (isStoredListValue(value)) return value.count <= upTo ? storedListValues(value, store, read) : value;
  if (Array.isArray(value)) {
    const expanded: unknown[] = [];
    for (const item of value) expanded.push(await expandValue(item, store, upTo, read));
    return expanded;
  }
  if (typeof value === 'object' && value !== null) {
    const expanded: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value))
      expanded[key] = await expandValue(item, store, upTo, read);
    return expanded;
  }
  return value;
}

/**
 * The values of a stored list: its manifest's records of its status, each as the value a task
 * without a loop writes at its output path. Only a list Wharf stored in `read.scope` is read.
 *
 * @example
 * ```ts
 * await storedListValues({ $manifest: 'out_m', count: 2, status: 'ok' }, store, { scope: listReadScope(input) });
 * // [{ outId: 'out_a', … }, { outId: 'out_b', … }]
 * ```
 */
export async function storedListValues(
  list: StoredListValue,
  store: OutputStore,
  read: ListReadOptions,
): Promise<unknown[]> {
  const values: unknown[] = [];
  for await (const entry of manifestEntries(store, { outId: list.$manifest }, read))
    if (isInstanceRecord(entry) && entry.status === list.status) values.push(outputValue(entry));
  return values;
}

function isInstanceRecord(value: unknown): value is InstanceRecord {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as InstanceRecord).instance === 'number' &&
    Array.isArray((value as InstanceRecord).outIds) &&
    typeof (value as InstanceRecord).status === 'string'
  );
}

/** One instance record as the value a task's output path receives (`TaskOutputValue`, plus `message`). */
function outputValue(record: InstanceRecord): Record<string, unknown> {
  return {
    outId: record.outIds[0] ?? null,
    outIds: record.outIds,
    status: record.status,
    bytes: record.bytes,
    exitCode: record.exitCode ?? null,
    preview: record.preview ?? '',
    ...(record.message === undefined ? {} : { message: record.message }),
  };
}
