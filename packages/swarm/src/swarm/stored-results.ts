// Pure: when a loop's instance records go to the store (chunks of its manifest) and what the
// run learns back (one out id per part). Runs inside the workflow sandbox; writing a part is
// the port's (a local activity), so the state changes only by recorded results.

import type { InstanceRecord } from '../contracts/data-plane-contracts.js';
import type { StoredListValue } from '../contracts/stored-list.js';
import type { ReusedLoop } from '../contracts/swarm-contracts.js';
import { isLooped } from '../dsl/task-instances.js';
import { addReusedLoop, cleanUpPool } from './context-pool.js';
import { channelNames } from './swarm-channels.js';
import { instanceTotal, type SwarmState, taskResults, taskSpec, unfinishedTasks } from './swarm-state.js';
import { MAX_CHUNKS } from './task-results.js';
import { CHANNELS_KIND } from './user-channels.js';

/** Most instance records in one chunk of a loop's manifest. */
export const CHUNK_ENTRIES = 4_000;
/** Most bytes (as JSON) of one chunk's records: a chunk is handed to a local activity in one piece. */
export const CHUNK_BYTES = 192 * 1024;

/**
 * One part of a loop's stored results to write: a chunk of records, or a manifest of chunks —
 * the loop's own (no `seq`), or one folding its first chunks (`seq`) so it carries few.
 */
export type ResultsPart =
  | { task: string; part: 'chunk'; seq: number; entries: InstanceRecord[] }
  | {
      task: string;
      part: 'manifest';
      seq?: number;
      chunks: { outId: string; count: number; manifest?: true }[];
    };

/**
 * The parts of the loops' results to store now, taking their records out of `state.pending`:
 * every full chunk; the rest of a loop whose instances have all folded, and with `flush` (the
 * run continues as new) the rest of every loop; once those are stored, a manifest folding the
 * first {@link MAX_CHUNKS} chunks of a loop that has that many (so what a run carries stays a
 * few chunk refs, however long the loop), and the manifest of each loop whose instances have
 * all folded and whose records are all stored. Call again after storing them, until none.
 *
 * @example
 * ```ts
 * for (let parts = resultsParts(state, false); parts.length > 0; parts = resultsParts(state, false))
 *   for (const part of parts) storedResultsPart(state, part, await write(part), now);
 * ```
 */
export function resultsParts(state: SwarmState, flush: boolean): ResultsPart[] {
  const parts: ResultsPart[] = [];
  for (const task of state.taskNames) {
    if (!isLooped(taskSpec(state, task))) continue;
    const results = taskResults(state, task);
    const ended = results.done > 0 && results.done >= instanceTotal(state, task);
    const pending = state.pending.get(task) ?? [];
    let seq = results.parts;
    let start = 0;
    let bytes = 0;
    for (let index = 0; index < pending.length; index++) {
      bytes += JSON.stringify(pending[index]).length + 1;
      const full = index + 1 - start >= CHUNK_ENTRIES || bytes >= CHUNK_BYTES;
      const last = index === pending.length - 1;
      if (full || (last && (ended || flush))) {
        parts.push({ task, part: 'chunk', seq: seq++, entries: pending.slice(start, index + 1) });
        start = index + 1;
        bytes = 0;
      }
    }
    if (start > 0) state.pending.set(task, pending.slice(start));
    if (start > 0) continue;
    if (results.chunks.length >= MAX_CHUNKS)
      parts.push({ task, part: 'manifest', seq, chunks: results.chunks.slice(0, MAX_CHUNKS) });
    else if (ended && pending.length === 0 && results.manifest === undefined && results.chunks.length > 0)
      parts.push({ task, part: 'manifest', chunks: [...results.chunks] });
  }
  return parts;
}

/**
 * Records a stored part: a chunk joins its loop's chunks; a manifest becomes the loop's, and its
 * `output` path gets the stored lists of its instances' values (`{ $manifest, count, status }`:
 * the successes on the left of a `||`, the failures on its right, each written only when there
 * is one).
 *
 * @example
 * ```ts
 * storedResultsPart(state, { task: 'fan', part: 'chunk', seq: 0, entries }, 'out_c0', now);
 * ```
 */
export function storedResultsPart(state: SwarmState, part: ResultsPart, outId: string, now: number): void {
  const channel = channelNames.results(part.task);
  if (part.part === 'chunk') {
    state.channels.update({ [channel]: { type: 'chunk', outId, count: part.entries.length } });
    return;
  }
  if (part.seq !== undefined) {
    state.channels.update({ [channel]: { type: 'fold', outId, replaced: part.chunks.length } });
    return;
  }
  state.channels.update({ [channel]: { type: 'manifest', outId } });
  recordOutputLists(state, part.task, outId, now);
}

/**
 * Records a loop a re-run reuses whole (see `ReusedLoop`): the earlier run's summary and
 * manifest become its results, its `output` path gets the stored list of that manifest, and the
 * outputs the run's context pool held for it enter the pool at the times they entered the run's
 * (then the swarm's `limits.cleanup_strategy` applies, as after a fold), as if its instances had
 * folded here.
 *
 * @example
 * ```ts
 * recordReusedLoop(state, 'fan', { total: 500, manifest: 'out_m', bytes: 4_000, outCount: 500, outIds: [] }, now);
 * ```
 */
export function recordReusedLoop(
  state: SwarmState,
  task: string,
  loop: ReusedLoop['loop'],
  now: number,
): void {
  state.channels.update({ [channelNames.results(task)]: { type: 'reused', ...loop } });
  recordOutputLists(state, task, loop.manifest, now);
  // A loop from a run that recorded no pooled outputs pools nothing, as before.
  if (loop.pooled === undefined || loop.pooled.length === 0) return;
  const pool = addReusedLoop(state.pool, task, loop, taskSpec(state, task).agent);
  state.pool = cleanUpPool(pool, state.definition, now, unfinishedTasks(state)).pool;
}

/** A loop's `output` path: the stored lists of its manifest's successes and failures (each only when there is one). */
function recordOutputLists(state: SwarmState, task: string, manifest: string, now: number): void {
  const spec = taskSpec(state, task);
  if (spec.output === undefined) return;
  const results = taskResults(state, task);
  const date = new Date(now).toISOString();
  for (const status of ['ok', 'failed'] as const) {
    const count = results[status];
    if (count === 0) continue;
    const value: StoredListValue = { $manifest: manifest, count, status };
    state.context.recordStoredList({ task, output: spec.output, value, date, skipKind: CHANNELS_KIND });
  }
}
