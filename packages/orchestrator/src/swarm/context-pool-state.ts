// Pure: the swarm's context pool and the rules that change it. Runs inside the workflow sandbox.
import { pruneContext } from '../context/prune-context.js';
import type { SwarmDefinition } from '../shared/swarm-schema.js';
import { isFinished } from '../shared/task-status.js';
import type { ContextPlan, ContextPool, ContextPoolEntry, TaskProgress } from '../shared/types.js';

/**
 * Entries a swarm's context pool keeps at most unless the run is started with
 * `contextPoolCap`: about 75 KB of carried metadata, while a context shows at most
 * `max_context_tasks` of them. See {@link ContextPoolState.applyCap}.
 *
 * @example
 * ```ts
 * pool.applyCap(definition, run.progress().tasks, DEFAULT_CONTEXT_POOL_CAP);
 * ```
 */
export const DEFAULT_CONTEXT_POOL_CAP = 500;

/** A `hooks.post_task` `checkpoint_and_prune` entry that is due. */
export interface DuePrune {
  /** The hook's index in `hooks.post_task`. */
  index: number;
  hook: NonNullable<SwarmDefinition['hooks']>['post_task'][number]['checkpoint_and_prune'];
  /** Outputs added to the pool since this hook last pruned. */
  sinceCheckpoint: number;
}

/**
 * The context pool of one swarm: one metadata entry per finished main output (never a body),
 * which later tasks' contexts are chosen from and `checkpoint_and_prune` hooks trim. Choosing
 * and pruning run as local activities; this class applies what they decide. Every time is a
 * parameter.
 *
 * @example
 * ```ts
 * const pool = new ContextPoolState(carried?.contextPool);
 * pool.add({ taskId: 'fetch', task: 'fetch', outId: 'out_1' }, now);
 * for (const due of pool.duePrunes(definition)) pool.applyPrune(due.index, ['fetch'], now);
 * ```
 */
export class ContextPoolState {
  /** The pool as carried over continue-as-new and handed to the local activities. */
  readonly pool: ContextPool;

  constructor(carried?: ContextPool) {
    this.pool = carried ?? { entries: [], added: 0, checkpoints: [] };
  }

  /** Adds a finished output, completed and last read at `now`, not yet relevant to anything. */
  add(
    output: Pick<ContextPoolEntry, 'taskId' | 'task' | 'outId'> & { agent?: string | undefined },
    now: number,
  ): void {
    this.pool.entries.push({
      taskId: output.taskId,
      task: output.task,
      outId: output.outId,
      completedAt: now,
      lastAccessed: now,
      relevanceScore: 0,
      ...(output.agent === undefined ? {} : { agent: output.agent }),
    });
    this.pool.added += 1;
  }

  /**
   * Keeps only the `count` newest entries of `task` in the pool (a loop's instances: its pool
   * stays bounded however many there are); pool order is kept.
   */
  keepNewest(task: string, count: number): void {
    let seen = 0;
    for (let index = this.pool.entries.length - 1; index >= 0; index--)
      if (this.pool.entries[index]?.task === task) seen += 1;
    if (seen <= count) return;
    let drop = seen - count;
    this.pool.entries = this.pool.entries.filter((entry) => {
      if (entry.task !== task || drop === 0) return true;
      drop -= 1;
      return false;
    });
  }

  /** Marks the outputs the plans chose as read at `now` (for LRU pruning), keeping each one's best relevance. */
  markRead(plans: Readonly<Record<string, ContextPlan>>, now: number): void {
    const read = new Map<string, number>();
    for (const plan of Object.values(plans)) {
      for (const entry of plan.entries)
        read.set(entry.taskId, Math.max(read.get(entry.taskId) ?? 0, entry.relevance));
    }
    for (const entry of this.pool.entries) {
      const relevance = read.get(entry.taskId);
      if (relevance === undefined) continue;
      entry.lastAccessed = now;
      entry.relevanceScore = Math.max(entry.relevanceScore, relevance);
    }
  }

  /** The definition's `checkpoint_and_prune` hooks that are due: `every` outputs added since each last pruned. */
  duePrunes(definition: SwarmDefinition): DuePrune[] {
    const due: DuePrune[] = [];
    for (const [index, { checkpoint_and_prune: hook }] of (definition.hooks?.post_task ?? []).entries()) {
      const sinceCheckpoint = this.pool.added - (this.pool.checkpoints[index] ?? 0);
      if (sinceCheckpoint >= hook.every) due.push({ index, hook, sinceCheckpoint });
    }
    return due;
  }

  /**
   * Applies the swarm's `limits.cleanup_strategy` to the pool (never to the store): keeps the
   * `keep_count` most recent, last read or most relevant outputs, or those of tasks some task
   * depends on, and always the outputs of the tasks that the `pending` tasks (still to run)
   * depend on. Returns the task ids it removed; none without a strategy.
   */
  cleanup(definition: SwarmDefinition, now: number, pending: readonly string[] = []): string[] {
    const strategy = definition.limits?.cleanup_strategy;
    if (strategy === undefined || this.pool.entries.length === 0) return [];
    if (strategy.type !== 'direct_dependencies' && this.pool.entries.length <= strategy.keep_count) return [];
    const removed = pruneContext({
      definition,
      pool: this.pool,
      hook: {
        every: 1,
        strategy: strategy.type,
        ...(strategy.type === 'direct_dependencies' ? {} : { keep_count: strategy.keep_count }),
      },
      sinceCheckpoint: 1,
      now,
      pending: [...pending],
    });
    if (removed.length === 0) return removed;
    const gone = new Set(removed);
    this.pool.entries = this.pool.entries.filter((entry) => !gone.has(entry.taskId));
    this.pool.lastPrunedAt = now;
    return removed;
  }

  /**
   * Keeps the pool at `cap` entries at most (removing from the pool, never from the store),
   * however long the swarm lives: first the outputs of tasks an unfinished task still reads
   * (its `depends_on` or `context.include_tasks`), newest first, then the newest of the rest.
   * Pool order is kept. Returns the task ids removed.
   */
  applyCap(
    definition: SwarmDefinition,
    tasks: readonly Pick<TaskProgress, 'task' | 'status'>[],
    cap = DEFAULT_CONTEXT_POOL_CAP,
  ): string[] {
    const { entries } = this.pool;
    if (entries.length <= cap) return [];
    const read = new Set<string>();
    for (const { task, status } of tasks) {
      if (isFinished(status)) continue;
      const spec = definition.tasks[task];
      for (const name of [...(spec?.depends_on ?? []), ...(spec?.context?.include_tasks ?? [])])
        read.add(name);
    }
    const kept = new Set<ContextPoolEntry>();
    for (const referenced of [true, false]) {
      for (let index = entries.length - 1; index >= 0 && kept.size < cap; index--) {
        const entry = entries[index];
        if (entry !== undefined && read.has(entry.task) === referenced) kept.add(entry);
      }
    }
    this.pool.entries = entries.filter((entry) => kept.has(entry));
    return entries.filter((entry) => !kept.has(entry)).map((entry) => entry.taskId);
  }

  /** Removes what hook `index` pruned from the pool (never from the store) and checkpoints the hook at `now`. */
  applyPrune(index: number, removed: readonly string[], now: number): void {
    const gone = new Set(removed);
    this.pool.entries = this.pool.entries.filter((entry) => !gone.has(entry.taskId));
    this.pool.checkpoints[index] = this.pool.added;
    this.pool.lastPrunedAt = now;
  }
}
