// Pure: the whole state of one swarm run, each part in its one home, and what of it carries
// over continue-as-new. Runs inside the workflow sandbox.
import { ChannelState } from '@wharf/channels';
import type { ResolveOptions } from '@wharf/context-resolver';
import type { SubagentResult } from '../contracts/agent-contracts.js';
import type { InstanceRecord } from '../contracts/data-plane-contracts.js';
import type { PendingToolCall, SwarmProgress } from '../contracts/progress-contracts.js';
import type { ContextPool } from '../contracts/relevance-pool-contracts.js';
import type { CarriedState, ReusedResults } from '../contracts/swarm-contracts.js';
import type { SwarmDefinition, TaskDefinition } from '../contracts/swarm-schema.js';
import { isFinished } from '../contracts/task-status.js';
import { WharfOrchestratorError } from '../orchestrator-error.js';
import { DEFAULT_CONTEXT_POOL_CAP, emptyContextPool } from './context-pool.js';
import { ReuseBook } from './reuse-book.js';
import { channelNames, swarmChannels } from './swarm-channels.js';
import { SwarmContext } from './swarm-context.js';
import { TaskBoard, unknownTaskError } from './task-board.js';
import { EMPTY_RESULTS, type TaskResults } from './task-results.js';
import { CHANNELS_KIND, type ChannelTargets, channelTargets, readChannel } from './user-channels.js';

/**
 * Where the swarm itself stands, apart from its tasks: it runs its tasks, asks its supervisor,
 * or has ended. Reported as `waiting` while it runs and something waits for a person (see
 * `swarmStatus`).
 */
export type SwarmPhase = Exclude<SwarmProgress['status'], 'waiting'>;

/**
 * One swarm run's state, owned by the loop that drives it (`driveSwarm`). Every fact has one
 * home: the swarm's own phase in {@link status}, a task's status in {@link tasks}, what it
 * produced in its `results:<task>` channel, the values tasks read in {@link context} (`†input`,
 * `†data`) and the user's channels (`†channels`). Planning (`nextStep`) and folding
 * (`foldOutcomes`) read it and apply what changes; the context pool and the held tool calls are
 * values that pure functions replace (`addOutputs`, `noteToolCall`, …), never change in place.
 */
export interface SwarmState {
  readonly definition: SwarmDefinition;
  /** The swarm's own phase: `running` until every task finished, then `supervising`, then its outcome. */
  status: SwarmPhase;
  /** Task names in definition order. */
  readonly taskNames: readonly string[];
  /** Each task's own state; the one writer of task status. */
  readonly tasks: TaskBoard;
  /** `results:<task>` Topics, `join:<task>` barriers and the user's channels. */
  readonly channels: ChannelState;
  readonly context: SwarmContext;
  /** Each finished instance's compact payload, by label: the supervisor's input. */
  readonly compacts: Record<string, string>;
  /** Metadata of the outputs later tasks' contexts are chosen from (replaced, never changed in place). */
  pool: ContextPool;
  /** Most entries {@link pool} keeps (see `capPool`). */
  readonly poolCap: number;
  /** Resolves `†channels.<name>` references from the user's channels. */
  readonly kinds: NonNullable<ResolveOptions['kinds']>;
  /** Per task, the user channels its output writes. */
  readonly channelTargets: ReadonlyMap<string, ChannelTargets>;
  /** Supersteps run so far, across the whole continue-as-new chain. */
  step: number;
  /** Tasks whose loop instances a previous run left unstarted: they start first. */
  resume: string[];
  /** Tool calls of agent tasks waiting for a person, as their agent workflows told the swarm (replaced, never changed in place). */
  pendingCalls: readonly PendingToolCall[];
  /** Continue-as-new runs before this one. */
  readonly generation: number;
  /**
   * Per loop task, the instance records folded but not yet stored in a chunk of its manifest,
   * in instance order. Never carried: every run stores them before it continues as new.
   */
  readonly pending: Map<string, InstanceRecord[]>;
  /**
   * Per task, instances of the superstep in flight that have finished but are not folded yet:
   * the `progress` query counts them (see `liveProgress`), so a long map shows its count move
   * before its step folds. Reset by the fold; never carried, never in the memo.
   */
  readonly settled: Map<string, number>;
  /** Results of an earlier run this run folds instead of running those tasks (a re-run). */
  readonly reuse: ReuseBook;
}

/**
 * A run's state: fresh (every task pending, `input` as `†input.*`), or as the previous run of
 * its continue-as-new chain carried it.
 *
 * @example
 * ```ts
 * const state = createSwarmState(definition, { input: { repo: 'wharf' } });
 * const next = createSwarmState(definition, { carried: carriedState(state, []) });
 * ```
 */
export function createSwarmState(
  definition: SwarmDefinition,
  options: {
    input?: Record<string, unknown>;
    carried?: CarriedState | undefined;
    reuse?: ReusedResults | undefined;
    /** Most entries the context pool keeps (see `capPool`). Default 500. */
    contextPoolCap?: number | undefined;
  } = {},
): SwarmState {
  const { carried } = options;
  const taskNames = Object.keys(definition.tasks);
  const channels = new ChannelState(swarmChannels(definition));
  if (carried !== undefined) channels.restore(carried.channels);
  return {
    definition,
    status: 'running',
    taskNames,
    tasks: new TaskBoard(taskNames, carried?.tasks),
    channels,
    context: new SwarmContext(carried?.context, options.input ?? {}),
    compacts: { ...(carried?.compacts ?? {}) },
    pool: carried?.contextPool ?? emptyContextPool(),
    poolCap: Math.max(1, Math.floor(options.contextPoolCap ?? DEFAULT_CONTEXT_POOL_CAP)),
    kinds: { [CHANNELS_KIND]: (path) => readChannel(channels, definition, path) },
    channelTargets: channelTargets(definition),
    step: carried?.step ?? 0,
    resume: [...(carried?.resume ?? [])],
    pendingCalls: [...(carried?.pendingToolCalls ?? [])],
    generation: carried?.generation ?? 0,
    pending: new Map(),
    settled: new Map(),
    reuse: new ReuseBook(options.reuse),
  };
}

/**
 * What the next run of the chain starts from; `resume` names the tasks whose loop instances
 * this run left unstarted.
 *
 * @example
 * ```ts
 * return continueAsNew({ ...input, carried: carriedState(state, ['fan']) });
 * ```
 */
export function carriedState(state: SwarmState, resume: readonly string[]): CarriedState {
  const unstored = [...state.pending].filter(([, records]) => records.length > 0).map(([task]) => task);
  if (unstored.length > 0)
    throw new WharfOrchestratorError(
      'INVALID_REQUEST',
      `instance records of ${unstored.join(', ')} are not stored yet: store them before continuing as new`,
    );
  return {
    step: state.step,
    channels: state.channels.snapshot(),
    context: state.context.messages(),
    tasks: state.tasks.snapshot(),
    compacts: state.compacts,
    generation: state.generation + 1,
    contextPool: state.pool,
    ...(resume.length === 0 ? {} : { resume: [...resume] }),
    ...(state.pendingCalls.length === 0 ? {} : { pendingToolCalls: [...state.pendingCalls] }),
  };
}

/**
 * The task's definition; a typed error (code `INVALID_REQUEST`) for a task the swarm does not have.
 *
 * @example
 * ```ts
 * taskSpec(state, 'fetch').depends_on; // []
 * ```
 */
export function taskSpec(state: SwarmState, task: string): TaskDefinition {
  const spec = state.definition.tasks[task];
  if (spec === undefined) throw unknownTaskError(task, state.taskNames);
  return spec;
}

/**
 * What the task's instances produced so far (a bounded summary: counts, bytes, the first
 * failures, its out ids while they are few; a loop's chunks and manifest).
 *
 * @example
 * ```ts
 * taskResults(state, 'fan'); // { done: 3, ok: 3, outIds: ['out_…', …], chunks: [], … }
 * ```
 */
export function taskResults(state: SwarmState, task: string): TaskResults {
  return (state.channels.get(channelNames.results(task)) as TaskResults | undefined) ?? EMPTY_RESULTS;
}

/**
 * The task's instance count: a repeat loop's count, a map loop's items once known (0 before).
 *
 * @example
 * ```ts
 * instanceTotal(state, 'fan'); // 24 for `loop: { type: repeat, count: 24 }`
 * ```
 */
export function instanceTotal(state: SwarmState, task: string): number {
  const loop = taskSpec(state, task).loop;
  if (loop?.type === 'map') return state.tasks.get(task).total ?? 0;
  return loop?.count ?? 1;
}

/**
 * The tasks that have not finished yet (pending, waiting or running), in task order: what
 * pruning must keep the direct inputs of.
 *
 * @example
 * ```ts
 * unfinishedTasks(state); // ['review', 'report']
 * ```
 */
export function unfinishedTasks(state: SwarmState): string[] {
  return state.taskNames.filter((task) => !isFinished(state.tasks.get(task).status));
}

/**
 * The result an earlier run stored for this instance, when this run reuses its task (a
 * re-run): folded as it is, instead of running the instance. `undefined`: the instance runs.
 *
 * @example
 * ```ts
 * reusedResult(state, { task: 'build', instance: 0, inputs: {} }); // { status: 'ok', outIds: ['out_…'], … }
 * ```
 */
export function reusedResult(
  state: SwarmState,
  item: { task: string; instance: number },
): SubagentResult | undefined {
  if (!state.reuse.has(item.task)) return undefined;
  return state.reuse.result(item.task, item.instance, instanceTotal(state, item.task));
}

/**
 * The reused results not folded yet, for the next run of the chain; `undefined` when none are left.
 *
 * @example
 * ```ts
 * continueAsNew({ ...input, reuse: remainingReuse(state) });
 * ```
 */
export function remainingReuse(state: SwarmState): ReusedResults | undefined {
  return state.reuse.remaining((task) => isFinished(state.tasks.get(task).status));
}
