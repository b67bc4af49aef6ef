// Pure: what one task's instances produced, as its `results:<task>` channel keeps it — a
// bounded summary, whatever the number of instances. Runs inside the workflow sandbox.

import type { AgentUsage } from '../contracts/agent-contracts.js';
import type { PooledLoopOutput } from '../contracts/relevance-pool-contracts.js';
import type { ReusedLoop } from '../contracts/swarm-contracts.js';
import { addUsage } from '../report/agent-usage.js';
import { POOL_PER_LOOP } from './context-pool.js';

/** Out ids a loop lists inline (in progress, results, its dependents' IN_REFS); past that, its manifest. */
export const INLINE_OUT_IDS = 64;
/** Failed instances a task keeps the reason of (the rest are counted, and in its manifest). */
export const FAILURES_KEPT = 10;

/**
 * What a task's instances produced so far, in instance order (`done` instances, from 0): counts,
 * bytes, usage, the first failures, and its out ids while they are few. A loop's per-instance
 * records are in the store: the chunks written so far, and its manifest once it ended.
 */
export interface TaskResults {
  /** Instances folded (0 … done-1). */
  done: number;
  ok: number;
  failed: number;
  cancelled: number;
  /** Bytes the instances produced (before any truncation). */
  bytes: number;
  usage?: AgentUsage;
  /** Instances folded from an earlier run's results (a re-run), not run here; absent while none. */
  reused?: number;
  /** Out ids in all. */
  outCount: number;
  /** The out ids, instances in order, while `outCount` is at most {@link INLINE_OUT_IDS} (a task without a loop: all). */
  outIds: string[];
  /** The first out id of the first instance that stored one: what a dependent's join barrier hears. */
  main: string | null;
  /** A task without a loop: its exit code. */
  exitCode?: number | null;
  /** The first {@link FAILURES_KEPT} failed instances and why. */
  failures: { instance: number; reason: string }[];
  /**
   * A loop: the chunks of its instance records stored so far, in order (the first may be a
   * manifest folding earlier chunks: `manifest: true`), at most {@link MAX_CHUNKS} of them.
   */
  chunks: { outId: string; count: number; manifest?: true }[];
  /** A loop: parts of its results stored so far (chunks and folded manifests): their keys' numbers. */
  parts: number;
  /** A loop that ended: the manifest naming its chunks. */
  manifest?: string;
  /**
   * A loop: its newest outputs as they entered the context pool (at most {@link POOL_PER_LOOP},
   * in pool order); absent before its first.
   */
  pooled?: PooledLoopOutput[];
  /** A loop: outputs it added to the context pool in all. */
  pooledCount?: number;
}

/** What one superstep adds to a task's results (its instances folded in instance order). */
export interface TaskResultsStep {
  type: 'step';
  done: number;
  ok: number;
  failed: number;
  cancelled: number;
  bytes: number;
  usage?: AgentUsage;
  outIds: string[];
  exitCode?: number | null;
  failures: { instance: number; reason: string }[];
  /** Instances of this step reused from an earlier run. */
  reused: number;
  /** Keep every out id inline (a task without a loop). */
  inlineAll: boolean;
  /** A loop: this step's newest pooled outputs (at most {@link POOL_PER_LOOP}), in fold order. */
  pooled?: PooledLoopOutput[];
  /** A loop: outputs this step pooled in all. */
  pooledCount?: number;
}

/** A write to a `results:<task>` channel: a step's instances, a stored chunk, the manifest. */
export type TaskResultsUpdate =
  | TaskResultsStep
  | { type: 'chunk'; outId: string; count: number }
  /** A manifest stored for the first `replaced` chunks: it takes their place. */
  | { type: 'fold'; outId: string; replaced: number }
  | { type: 'manifest'; outId: string }
  /** A loop a re-run reuses whole: the earlier run's summary and manifest, every instance `ok`. */
  | ({ type: 'reused' } & ReusedLoop['loop']);

/** Chunks a loop's results list before the first ones are folded into a manifest of their own. */
export const MAX_CHUNKS = 8;

/** A task with no instance folded yet. */
export const EMPTY_RESULTS: TaskResults = Object.freeze({
  done: 0,
  ok: 0,
  failed: 0,
  cancelled: 0,
  bytes: 0,
  outCount: 0,
  outIds: [],
  main: null,
  failures: [],
  chunks: [],
  parts: 0,
}) as TaskResults;

/**
 * The fold of a `results:<task>` channel: a new summary, the old one unchanged. Its size is
 * bounded by the inline out ids, the kept failures and the chunk list, never by the instances.
 *
 * @example
 * ```ts
 * const next = mergeTaskResults(EMPTY_RESULTS, { type: 'step', done: 2, ok: 2, failed: 0, cancelled: 0, bytes: 8, outIds: ['out_a', 'out_b'], failures: [], reused: 0, inlineAll: false });
 * next.outIds; // ['out_a', 'out_b']
 * ```
 */
export function mergeTaskResults(current: TaskResults, update: TaskResultsUpdate): TaskResults {
  if (update.type === 'chunk')
    return {
      ...current,
      chunks: [...current.chunks, { outId: update.outId, count: update.count }],
      parts: current.parts + 1,
    };
  if (update.type === 'fold') {
    const folded = current.chunks.slice(0, update.replaced);
    const count = folded.reduce((sum, chunk) => sum + chunk.count, 0);
    return {
      ...current,
      chunks: [{ outId: update.outId, count, manifest: true }, ...current.chunks.slice(update.replaced)],
      parts: current.parts + 1,
    };
  }
  if (update.type === 'manifest') return { ...current, manifest: update.outId };
  if (update.type === 'reused') {
    const { total, bytes, outCount, outIds, usage, manifest, pooled, pooledCount } = update;
    const inline = outCount <= INLINE_OUT_IDS ? outIds : [];
    return {
      ...EMPTY_RESULTS,
      done: total,
      ok: total,
      bytes,
      ...(usage === undefined ? {} : { usage }),
      reused: total,
      outCount,
      outIds: inline,
      main: outIds[0] ?? null,
      failures: [],
      chunks: [],
      manifest,
      ...(pooled === undefined || pooled.length === 0
        ? {}
        : { pooled: [...pooled], pooledCount: pooledCount ?? pooled.length }),
    };
  }
  const outCount = current.outCount + update.outIds.length;
  const inline = update.inlineAll || outCount <= INLINE_OUT_IDS;
  const usage = addUsage(current.usage, update.usage);
  const reused = (current.reused ?? 0) + update.reused;
  return {
    ...current,
    done: current.done + update.done,
    ok: current.ok + update.ok,
    failed: current.failed + update.failed,
    cancelled: current.cancelled + update.cancelled,
    bytes: current.bytes + update.bytes,
    ...(usage === undefined ? {} : { usage }),
    ...(reused === 0 ? {} : { reused }),
    outCount,
    outIds: inline ? [...current.outIds, ...update.outIds] : [],
    main: current.main ?? update.outIds[0] ?? null,
    ...(update.exitCode === undefined ? {} : { exitCode: update.exitCode }),
    failures: [...current.failures, ...update.failures].slice(0, FAILURES_KEPT),
    ...pooledField(current, update),
  };
}

/** A loop's newest pooled outputs after a step: the newest {@link POOL_PER_LOOP} of before and the step's. */
function pooledField(
  current: TaskResults,
  update: TaskResultsStep,
): Pick<TaskResults, 'pooled' | 'pooledCount'> {
  if (update.pooled === undefined || update.pooled.length === 0) return {};
  return {
    pooled: [...(current.pooled ?? []), ...update.pooled].slice(-POOL_PER_LOOP),
    pooledCount: (current.pooledCount ?? 0) + (update.pooledCount ?? update.pooled.length),
  };
}
