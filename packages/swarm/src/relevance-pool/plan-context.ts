import { resolveContextLimits } from '../contracts/context-limits.js';
import type {
  ContextLoopNote,
  ContextPlan,
  ContextPoolEntry,
  PlanContextInput,
} from '../contracts/relevance-pool-contracts.js';
import { relevanceScorer } from './relevance.js';

const byTaskId = (a: ContextPoolEntry, b: ContextPoolEntry) =>
  a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : 0;

/**
 * Chooses the context of each task about to run from the swarm's context pool (Tier 3): the
 * pooled outputs scored by {@link relevanceScorer}, at least `relevance_threshold` (or the
 * task's `min_relevance`), most relevant first (then most recent, then task id), at most
 * `max_context_tasks`; within `time_window_secs` when set; with `context_masking`, all but the
 * most recent outputs become tombstones. The task's `context` block applies (`mode: manual`
 * takes `include_tasks` in order, unscored; `exclude_tasks`; `max_bytes`), and
 * `inject_context: false` or `mode: none` gives no context. A task naming a looped task stands
 * for all its instances. Reads no bodies: the subagent reads only the chosen ones. Tasks that
 * get no context are left out.
 *
 * The pool keeps only a loop's newest outputs, so a context that shows some of a loop's
 * instances (or, `mode: manual`, names the loop) also names the loop's `ok` count and, once it
 * has ended, its manifest (`input.loops`): the subagent can read every output from there.
 *
 * @example
 * ```ts
 * planContext({ definition, pool, tasks: ['report'], now });
 * // { report: { entries: [{ taskId: 'clean', outId: 'out_…', relevance: 1 }, …], maxBytes: 102400, maxTasks: 10 } }
 * planContext({ definition, pool, tasks: ['join'], now, loops: { fan: { ok: 5000, manifest: 'out_m' } } }).join?.loops;
 * // [{ task: 'fan', shown: 10, total: 5000, manifest: 'out_m' }]
 * ```
 */
export function planContext(input: PlanContextInput): Record<string, ContextPlan> {
  // One entry per output, by task id (a later entry replaces an earlier one in its place).
  const byId = new Map<string, ContextPoolEntry>();
  for (const entry of input.pool.entries) byId.set(entry.taskId, entry);
  const pooled = [...byId.values()];
  const plans: Record<string, ContextPlan> = {};
  for (const task of new Set(input.tasks)) {
    const plan = planOne(input, task, pooled);
    if (plan !== undefined) plans[task] = plan;
  }
  return plans;
}

function planOne(input: PlanContextInput, task: string, pooled: ContextPoolEntry[]): ContextPlan | undefined {
  const spec = input.definition.tasks[task];
  const control = spec?.context ?? {};
  if (spec?.inject_context === false || control.mode === 'none') return undefined;
  const limits = resolveContextLimits(input.definition.limits, spec?.limits);
  const maxBytes = control.max_bytes ?? limits.maxBytes;
  const threshold = control.min_relevance ?? limits.relevanceThreshold;
  const score = relevanceScorer({ definition: input.definition, pool: pooled, task, now: input.now });
  const excluded = new Set(control.exclude_tasks ?? []);
  const oldest = limits.timeWindowSecs === undefined ? undefined : input.now - limits.timeWindowSecs * 1000;
  const eligible = (entry: ContextPoolEntry) =>
    entry.taskId !== task &&
    !excluded.has(entry.task) &&
    (oldest === undefined || entry.completedAt >= oldest);

  let scored: { entry: ContextPoolEntry; relevance: number }[];
  // Loops this context takes outputs of: what it names beside the outputs it shows.
  const loopsTaken = new Set<string>();
  if (control.mode === 'manual') {
    for (const name of control.include_tasks ?? [])
      if (name !== task && !excluded.has(name) && input.loops?.[name] !== undefined) loopsTaken.add(name);
    // include_tasks in the order written, each task's own output then its instances'.
    scored = (control.include_tasks ?? []).flatMap((name) =>
      [
        ...pooled.filter((entry) => entry.taskId === name),
        ...pooled.filter((entry) => entry.task === name && entry.taskId !== name),
      ]
        .filter(eligible)
        .map((entry) => ({ entry, relevance: score(entry) })),
    );
  } else {
    const included = control.include_tasks ? new Set(control.include_tasks) : undefined;
    scored = pooled
      .filter((entry) => eligible(entry) && (included === undefined || included.has(entry.task)))
      .map((entry) => ({ entry, relevance: score(entry) }))
      .filter((candidate) => candidate.relevance >= threshold)
      .sort(
        (a, b) =>
          b.relevance - a.relevance ||
          b.entry.completedAt - a.entry.completedAt ||
          byTaskId(a.entry, b.entry),
      );
  }
  for (const { entry } of scored)
    if (entry.task !== task && input.loops?.[entry.task] !== undefined) loopsTaken.add(entry.task);
  const shownInFull =
    limits.maskKeepRecent === undefined
      ? undefined
      : new Set(
          scored
            .map((candidate) => candidate.entry)
            .sort((a, b) => b.completedAt - a.completedAt || byTaskId(a, b))
            .slice(0, limits.maskKeepRecent)
            .map((entry) => entry.taskId),
        );
  const chosen = scored.slice(0, limits.maxTasks);
  const loops = loopNotes(
    input,
    loopsTaken,
    chosen.map(({ entry }) => entry),
  );
  if (chosen.length === 0 && loops.length === 0) return undefined;
  return {
    entries: chosen.map(({ entry, relevance }) => ({
      taskId: entry.taskId,
      outId: entry.outId,
      relevance,
      ...(shownInFull !== undefined && !shownInFull.has(entry.taskId) ? { masked: true as const } : {}),
    })),
    maxBytes,
    maxTasks: limits.maxTasks,
    ...(loops.length === 0 ? {} : { loops }),
  };
}

/** The loops a context takes outputs of and shows fewer of than ended `ok`, in task order. */
function loopNotes(
  input: PlanContextInput,
  taken: ReadonlySet<string>,
  chosen: readonly ContextPoolEntry[],
): ContextLoopNote[] {
  const notes: ContextLoopNote[] = [];
  for (const task of [...taken].sort()) {
    const outputs = input.loops?.[task];
    if (outputs === undefined) continue;
    const shown = chosen.filter((entry) => entry.task === task && entry.taskId !== task).length;
    if (outputs.ok <= shown) continue;
    notes.push({
      task,
      shown,
      total: outputs.ok,
      ...(outputs.manifest === undefined ? {} : { manifest: outputs.manifest }),
    });
  }
  return notes;
}
