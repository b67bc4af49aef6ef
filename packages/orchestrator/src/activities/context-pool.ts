import {
  checkpointAndPrune,
  contextConfigFromLimits,
  getContextMetrics,
  resolveLimits,
  selectContext,
  type TaskDefinition,
  type TaskOutput,
  type WorkflowDefinition,
  type WorkflowState,
} from '@wharf/stdio-limits';
import type { SwarmDefinition } from '../dsl/swarm-schema.js';
import type {
  ContextPlan,
  ContextPool,
  PlanContextInput,
  PruneContextInput,
  SwarmContextMetrics,
} from '../shared/types.js';

/**
 * Chooses the context of each task about to run from the swarm's context pool, with
 * stdio-limits' Tier 3 rules: relevance to the task (direct dependency 1.0, transitive
 * 0.8/depth, same agent 0.5, recent 0.3), the task's `context` block and `inject_context`, and
 * the resolved `max_context_bytes` / `max_context_tasks` / `relevance_threshold` /
 * `context_masking` limits. Reads no bodies: it runs as a local activity on metadata, and the
 * subagent reads only the chosen bodies. Tasks that get no context are left out.
 *
 * @example
 * ```ts
 * planContext({ definition, pool, tasks: ['report'], now: Date.now() });
 * // { report: { entries: [{ taskId: 'test', outId: 'out_…', relevance: 1 }, …], maxBytes: 102400, maxTasks: 10 } }
 * ```
 */
export function planContext(input: PlanContextInput): Record<string, ContextPlan> {
  const workflow = contextWorkflow(input.definition, input.pool);
  const state = poolState(input.definition, input.pool);
  const plans: Record<string, ContextPlan> = {};
  for (const task of new Set(input.tasks)) {
    const config = contextConfigFromLimits(resolveLimits(workflow, task));
    const selection = selectContext({ currentTaskId: task, workflow, state, config, now: input.now });
    if (selection.candidates.length === 0) continue;
    plans[task] = {
      entries: selection.candidates.map(({ output, relevance, masked }) => ({
        taskId: output.taskId,
        outId: output.filePath as string,
        relevance,
        ...(masked ? { masked: true as const } : {}),
      })),
      maxBytes: selection.maxBytes,
      maxTasks: selection.maxTasks,
    };
  }
  return plans;
}

/**
 * The task ids a `checkpoint_and_prune` hook removes from the pool (none before `every`
 * outputs were added since the last prune). The outputs stay in the store.
 *
 * @example
 * ```ts
 * pruneContext({ definition, pool, hook: { every: 10, strategy: 'most_recent', keep_count: 5 }, now });
 * // ['fetch#0', 'fetch#1', …]
 * ```
 */
export function pruneContext(input: PruneContextInput): string[] {
  const state = { ...poolState(input.definition, input.pool), tasksSinceCheckpoint: input.sinceCheckpoint };
  return checkpointAndPrune(state, input.hook, input.now).removed;
}

/**
 * stdio-limits' context metrics of the pool: bytes the pooled outputs hold (`sizes`, by out
 * id, as the store has them), how many there are, how many are over `max_context_bytes` (a
 * context shows them cut), their mean relevance, when the pool was last pruned.
 *
 * @example
 * ```ts
 * contextMetrics({ definition, pool }, sizes); // { totalBytes: 3145728, taskCount: 4, truncatedCount: 1, … }
 * ```
 */
export function contextMetrics(
  input: { definition: SwarmDefinition; pool: ContextPool },
  sizes: ReadonlyMap<string, number>,
): SwarmContextMetrics {
  return getContextMetrics(poolState(input.definition, input.pool, sizes), {
    bytesOf: (output) => output.originalSize,
  });
}

/**
 * A subagent's main output as a stdio-limits `TaskOutput` whose body stays in the output
 * store: `content` is empty until someone reads it, `filePath` is the out id (a masked
 * output's tombstone points there).
 *
 * @example
 * ```ts
 * storedOutput('fetch', 'out_a1b2c3', 1); // { taskId: 'fetch', content: '', filePath: 'out_a1b2c3', relevanceScore: 1, … }
 * ```
 */
export function storedOutput(taskId: string, outId: string, relevance: number): TaskOutput {
  return {
    taskId,
    outputType: 'stdout',
    content: '',
    originalSize: 0,
    truncated: false,
    strategy: 'head',
    filePath: outId,
    relevanceScore: relevance,
    completedAt: 0,
    lastAccessed: 0,
    dependedBy: [],
  };
}

/**
 * The swarm as stdio-limits sees it, with loop instances as tasks of their own: `task#i`
 * inherits its task's dependencies and agent, and a dependency (or `include_tasks` /
 * `exclude_tasks` entry) naming a looped task stands for all its instances.
 */
function contextWorkflow(definition: SwarmDefinition, pool: ContextPool): WorkflowDefinition {
  const instances = new Map<string, string[]>();
  for (const entry of pool.entries) {
    if (entry.taskId === entry.task) continue;
    instances.set(entry.task, [...(instances.get(entry.task) ?? []), entry.taskId]);
  }
  const expand = (names: readonly string[]) =>
    names.flatMap((name) => [name, ...(instances.get(name) ?? [])]);
  const tasks: Record<string, TaskDefinition> = {};
  for (const [name, spec] of Object.entries(definition.tasks)) {
    const task: TaskDefinition = {
      depends_on: expand(spec.depends_on),
      inject_context: spec.inject_context,
      ...(spec.agent === undefined ? {} : { agent: spec.agent }),
      ...(spec.limits === undefined ? {} : { limits: spec.limits }),
      ...(spec.context === undefined
        ? {}
        : {
            context: {
              ...spec.context,
              ...(spec.context.include_tasks === undefined
                ? {}
                : { include_tasks: expand(spec.context.include_tasks) }),
              ...(spec.context.exclude_tasks === undefined
                ? {}
                : { exclude_tasks: expand(spec.context.exclude_tasks) }),
            },
          }),
    };
    tasks[name] = task;
    for (const instance of instances.get(name) ?? []) tasks[instance] = task;
  }
  return { tasks, ...(definition.limits === undefined ? {} : { limits: definition.limits }) };
}

/**
 * The pool as a stdio-limits workflow state: bodies stay in the store (`content` is empty;
 * `originalSize` comes from `sizes` when known, else 0).
 */
function poolState(
  definition: SwarmDefinition,
  pool: ContextPool,
  sizes: ReadonlyMap<string, number> = new Map(),
): WorkflowState {
  const maxContextBytes = resolveLimits({
    ...(definition.limits === undefined ? {} : { limits: definition.limits }),
  }).max_context_bytes;
  const dependents = new Map<string, string[]>();
  for (const [name, spec] of Object.entries(definition.tasks)) {
    for (const dependency of spec.depends_on)
      dependents.set(dependency, [...(dependents.get(dependency) ?? []), name]);
  }
  const taskOutputs: Record<string, TaskOutput> = {};
  for (const entry of pool.entries) {
    const size = sizes.get(entry.outId) ?? 0;
    taskOutputs[entry.taskId] = {
      ...storedOutput(entry.taskId, entry.outId, entry.relevanceScore),
      originalSize: size,
      truncated: size > maxContextBytes,
      completedAt: entry.completedAt,
      lastAccessed: entry.lastAccessed,
      dependedBy: dependents.get(entry.task) ?? [],
      ...(entry.agent === undefined ? {} : { agent: entry.agent }),
    };
  }
  return {
    taskOutputs,
    ...(pool.lastPrunedAt === undefined ? {} : { lastPrunedAt: pool.lastPrunedAt }),
  };
}
