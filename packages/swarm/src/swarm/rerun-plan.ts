// Pure: which tasks of a re-run reuse what an earlier run stored, and which run again. Reads
// definitions and recorded results only; no clock, no I/O.

import type { TaskProgress } from '../contracts/progress-contracts.js';
import { isReusedLoop, REUSED_WHOLE_FROM } from '../contracts/reused-loop.js';
import type { ReusedLoop, ReusedResults } from '../contracts/swarm-contracts.js';
import type { SwarmDefinition, TaskDefinition } from '../contracts/swarm-schema.js';
import { isLooped } from '../dsl/task-instances.js';
import { dependencyOrder } from '../dsl/validate-graph.js';
import { WharfOrchestratorError } from '../orchestrator-error.js';

/** What {@link planRerun} reads of the run a re-run comes from. */
export interface RerunSource {
  definition: SwarmDefinition;
  /** `†input.*` values as the run ended with them. */
  inputs: Record<string, unknown>;
  /**
   * Each task as its result reports it: status and instance count; for a wide loop also its
   * manifest, bytes, out ids, usage, failures and pooled outputs (what {@link wholeLoop} reuses).
   */
  tasks: readonly ReusableProgress[];
  /**
   * Per task, per instance: the result the run folded (see {@link ReusedResults}); a wide loop's
   * need not be read ({@link reusableWhole}): it is reused from its progress, where a re-run's own
   * whole loop is too.
   */
  results: Readonly<ReusedResults>;
}

/** What a re-run reads of a task's progress in the run it comes from. */
export type ReusableProgress = Pick<TaskProgress, 'task' | 'status' | 'instances'> &
  Partial<
    Pick<
      TaskProgress,
      'manifest' | 'bytesCaptured' | 'outIds' | 'outCount' | 'usage' | 'failures' | 'pooled' | 'pooledCount'
    >
  >;

/** What a re-run does with each task. */
export interface RerunPlan {
  /** The results the re-run folds as they are, for the tasks it reuses. */
  reuse: ReusedResults;
  /** Tasks that run again, in definition order, each with why. */
  rerun: { task: string; reason: string }[];
  /** Tasks whose results are reused, in definition order. */
  reused: string[];
}

/**
 * Decides a re-run: `from` (when named) and every task that depends on it (transitively) run
 * again; so does a task whose own definition changed (its spec, its agent, the swarm's limits or
 * a channel it names), a task new in the definition, one that did not end `done` (failed,
 * skipped, cancelled: run again rather than carry the outcome over), one whose results are not
 * all recorded, one that reads a `†input.*` value that changed (in its inputs, `when:` or a map's
 * `over`), and everything downstream of these. Every other task reuses its results: the re-run
 * folds them as if the task had run, with no process and no model call. An unknown `from` is a
 * typed error naming the tasks ({@link checkRerunFrom}); so is a re-run without `from` in which
 * no task runs again (nothing it changed is read).
 *
 * @example
 * ```ts
 * const plan = planRerun(source, { definition, inputs, from: 'report' });
 * plan.reused; // ['fetch', 'clean']
 * plan.rerun; // [{ task: 'report', reason: 'named by --from' }, { task: 'publish', reason: 'depends on report' }]
 * planRerun(source, { definition, inputs: { region: 'us' } }).rerun;
 * // [{ task: 'clean', reason: 'it reads †input.region, which changed' }, { task: 'report', reason: 'depends on clean' }, …]
 * ```
 */
export function planRerun(
  source: RerunSource,
  target: { definition: SwarmDefinition; inputs: Record<string, unknown>; from?: string | undefined },
): RerunPlan {
  const { definition, from } = target;
  const names = Object.keys(definition.tasks);
  if (from !== undefined) checkRerunFrom(names, from);
  const previous = new Map(source.tasks.map((task) => [task.task, task]));
  const changedInputs = changedKeys(source.inputs, target.inputs);
  // A task's own reason to run again first, then what it depends on, then how it ended.
  const reasons = new Map<string, string>();
  const order = dependencyOrder(definition.tasks);
  // A cycle is refused by the definition check before any run; then nothing reads as downstream.
  for (const task of 'order' in order ? order.order : names) {
    const upstream = (definition.tasks[task] as TaskDefinition).depends_on.find((dependency) =>
      reasons.has(dependency),
    );
    const reason =
      ownReason(task) ?? (upstream === undefined ? undefined : `depends on ${upstream}`) ?? endReason(task);
    if (reason !== undefined) reasons.set(task, reason);
  }
  const reuse: ReusedResults = {};
  const reused: string[] = [];
  for (const task of names) {
    if (reasons.has(task)) continue;
    // A wide loop from its progress (a re-run's own whole loop is there too, as its own).
    const progress = previous.get(task);
    const whole =
      progress === undefined ? undefined : wholeLoop(definition.tasks[task] as TaskDefinition, progress);
    const earlier = source.results[task];
    reuse[task] = whole ?? (isReusedLoop(earlier) ? [] : (earlier ?? []));
    reused.push(task);
  }
  if (reasons.size === 0)
    throw new WharfOrchestratorError(
      'INVALID_REQUEST',
      `nothing to re-run: ${
        changedInputs.size === 0
          ? 'no input changed'
          : `no task reads ${[...changedInputs].map((key) => `†input.${key}`).join(', ')}`
      }, no task's definition changed and every task ended done; name a task to run again (--from)`,
    );
  return {
    reuse,
    rerun: names
      .filter((task) => reasons.has(task))
      .map((task) => ({ task, reason: reasons.get(task) as string })),
    reused,
  };

  function ownReason(task: string): string | undefined {
    if (task === from) return 'named by --from';
    const before = source.definition.tasks[task];
    if (before === undefined) return 'new in the definition';
    if (fingerprint(source.definition, task) !== fingerprint(definition, task))
      return 'its definition changed';
    const input = inputReferences(definition.tasks[task] as TaskDefinition).find(
      (key) => key === '' || changedInputs.has(key),
    );
    if (input !== undefined) return `it reads †input${input === '' ? '' : `.${input}`}, which changed`;
    return undefined;
  }

  function endReason(task: string): string | undefined {
    const ended = previous.get(task);
    if (ended === undefined || ended.status !== 'done') return `it ended ${ended?.status ?? 'unknown'}`;
    if (wholeLoop(definition.tasks[task] as TaskDefinition, ended) !== undefined) return undefined;
    const results = source.results[task] ?? [];
    if (isReusedLoop(results)) return 'its results are not all recorded in the run';
    const complete =
      results.length === ended.instances.total &&
      Array.from({ length: ended.instances.total }, (_, index) => results[index]).every(
        (result) => result?.status === 'ok',
      );
    return complete ? undefined : 'its results are not all recorded in the run';
  }
}

/**
 * Refuses (a typed error, code `INVALID_REQUEST`, naming the tasks) a re-run from a task not
 * among a definition's task names: what {@link planRerun} checks first, and what a caller can check
 * before it reads the run's history or starts anything.
 *
 * @example
 * ```ts
 * checkRerunFrom(Object.keys(definition.tasks), 'report'); // passes
 * checkRerunFrom(['fetch', 'report'], 'reprot'); // throws: cannot re-run from "reprot": the swarm has no such task; tasks: fetch, report
 * ```
 */
export function checkRerunFrom(names: readonly string[], from: string): void {
  if (!names.includes(from))
    throw new WharfOrchestratorError(
      'INVALID_REQUEST',
      `cannot re-run from "${from}": the swarm has no such task; tasks: ${names.join(', ')}`,
    );
}

/**
 * True when a re-run reuses this task whole, from its summary and manifest (a {@link ReusedLoop}),
 * rather than instance by instance: a loop of more than `REUSED_WHOLE_FROM` instances that does
 * not write `†channels`. Its per-instance results need not be read.
 *
 * @example
 * ```ts
 * reusableWhole({ loop: { type: 'repeat', count: 500 }, output: '†data.each' }, 500); // true
 * reusableWhole({ loop: { type: 'repeat', count: 5 } }, 5); // false
 * ```
 */
export function reusableWhole(spec: Pick<TaskDefinition, 'loop' | 'output'>, instances: number): boolean {
  return (
    isLooped(spec) &&
    instances > REUSED_WHOLE_FROM &&
    !JSON.stringify(spec.output ?? null).includes('†channels')
  );
}

/**
 * A wide loop that ended with every instance `ok` and its manifest stored, as a re-run reuses it
 * whole: its summary, manifest and the outputs the run's context pool held for it.
 */
function wholeLoop(spec: TaskDefinition, progress: ReusableProgress): ReusedLoop | undefined {
  const { instances, manifest } = progress;
  if (!reusableWhole(spec, instances.total) || manifest === undefined) return undefined;
  if (progress.status !== 'done' || instances.done !== instances.total || progress.failures !== undefined)
    return undefined;
  const outIds = progress.outIds ?? [];
  return {
    loop: {
      total: instances.total,
      manifest,
      bytes: progress.bytesCaptured ?? 0,
      outCount: progress.outCount ?? outIds.length,
      outIds,
      ...(progress.usage === undefined ? {} : { usage: progress.usage }),
      // The outputs the run's pool held for it: a task run again after it gets the same context.
      ...(progress.pooled === undefined || progress.pooled.length === 0
        ? {}
        : {
            pooled: progress.pooled.map((output) => ({ ...output })),
            pooledCount: progress.pooledCount ?? progress.pooled.length,
          }),
    },
  };
}

/** The keys whose values differ between two input sets (added and removed ones too). */
function changedKeys(before: Record<string, unknown>, after: Record<string, unknown>): Set<string> {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return new Set(
    [...keys].filter(
      (key) =>
        Object.hasOwn(before, key) !== Object.hasOwn(after, key) ||
        canonicalJson(before[key]) !== canonicalJson(after[key]),
    ),
  );
}

/** The `†input` keys a task reads in its inputs, `when:` and map `over` (`''` for `†input` whole). */
function inputReferences(spec: TaskDefinition): string[] {
  const texts = [
    ...Object.values(spec.inputs),
    spec.when ?? '',
    spec.loop?.type === 'map' ? spec.loop.over : '',
  ];
  const keys = new Set<string>();
  for (const text of texts)
    for (const match of text.matchAll(/†input(?:\.([A-Za-z0-9_-]+))?/g)) keys.add(match[1] ?? '');
  return [...keys];
}

/** What a task's run depends on in the definition: its spec, its agent, the limits, the channels it names. */
function fingerprint(definition: SwarmDefinition, task: string): string {
  const spec = definition.tasks[task] as TaskDefinition;
  const text = JSON.stringify(spec);
  const channels = [
    ...new Set([...text.matchAll(/†channels\.([A-Za-z][A-Za-z0-9_-]*)/g)].map((match) => match[1] as string)),
  ]
    .sort()
    .map((name) => [name, definition.channels[name] ?? null]);
  return canonicalJson({
    spec,
    agent: spec.agent === undefined ? null : (definition.agents[spec.agent] ?? null),
    limits: definition.limits ?? null,
    channels,
  });
}

/**
 * JSON with object keys sorted, so equal values give equal text whatever their key order.
 *
 * @example
 * ```ts
 * canonicalJson({ b: 1, a: [2, { d: 3, c: 4 }] }); // '{"a":[2,{"c":4,"d":3}],"b":1}'
 * ```
 */
export function canonicalJson(value: unknown): string {
  return (
    JSON.stringify(value, (_key, item: unknown) =>
      typeof item === 'object' && item !== null && !Array.isArray(item)
        ? Object.fromEntries(
            Object.entries(item as Record<string, unknown>).sort(([left], [right]) =>
              left < right ? -1 : left > right ? 1 : 0,
            ),
          )
        : item,
    ) ?? 'undefined'
  );
}
