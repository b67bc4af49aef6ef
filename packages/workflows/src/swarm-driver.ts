// The loop of a swarm run, free of Temporal: it owns the run's SwarmState and moves it through
// its supersteps with the pure functions of ../swarm/ (plan, fold, pool rules, reports), and
// asks a SwarmPort for everything outside it (activities, child workflows, the clock, waiting
// for signals, history size, publishing). swarm-workflow.ts gives it the Temporal port; its unit
// test gives it fakes. Deterministic as long as the port is.

import type {
  CarriedState,
  ContextPlan,
  ContextPool,
  IndexItemsInput,
  ManifestPartInput,
  MapItems,
  PlanContextInput,
  PruneContextInput,
  SuperviseResult,
  SwarmContextMetrics,
  SwarmDefinition,
  SwarmResult,
} from '@wharf/swarm';
import {
  applyPrune,
  capPool,
  carriedState,
  contextRequest,
  duePrunes,
  endToolCalls,
  failUnresolved,
  finalReport,
  foldOutcomes,
  type IndexRequest,
  type InstanceOutcome,
  markRead,
  nextGateDeadline,
  nextStep,
  openGates,
  type RunPlace,
  resultsParts,
  reusedResult,
  type ScheduledInstance,
  type SubagentCall,
  type SupervisorCall,
  type SwarmState,
  storedResultsPart,
  subagentCall,
  supervisorCall,
  swarmResult,
  taskProgress,
  unfinishedTasks,
} from '@wharf/swarm';
import { runPool } from './run-pool.js';
import { loopCaps, TaskSlots } from './task-slots.js';

/** Everything the swarm loop needs from outside the run. */
export interface SwarmPort {
  /** The workflow clock, epoch milliseconds. */
  now(): number;
  /**
   * Runs one instance's subagent (a script as an activity, an agent as a child workflow) and
   * resolves with how it ended; a failure or a cancellation is an outcome, never a rejection.
   */
  runInstance(call: SubagentCall): Promise<InstanceOutcome>;
  /**
   * Indexes a map loop's stored list (an activity: the list is read on a worker, never by the
   * workflow): the index and item count, or why it is no list. Never rejects.
   */
  indexItems(
    input: IndexItemsInput,
  ): Promise<{ index: string; count: number; format: 'line' | 'json' } | { error: string }>;
  /** Stores one part of a loop's results (a local activity) and resolves with its out id. */
  writeManifestPart(input: ManifestPartInput): Promise<string>;
  /** Chooses the contexts of the tasks about to run (a local activity). */
  planContext(input: PlanContextInput): Promise<Record<string, ContextPlan>>;
  /** The task ids a due `checkpoint_and_prune` hook removes from the pool (a local activity). */
  pruneContext(input: PruneContextInput): Promise<string[]>;
  /**
   * Measures the context pool (a local activity, the run's last command: `summary` is shown
   * with it in the Web UI's history, where it outlives every worker).
   */
  contextMetrics(
    input: { definition: SwarmDefinition; pool: ContextPool },
    options?: { summary?: string },
  ): Promise<SwarmContextMetrics>;
  /**
   * Runs the supervisor (an agent task) and resolves with its answer, or with `error` set when
   * it could not answer; never rejects.
   */
  supervise(call: SupervisorCall): Promise<SuperviseResult>;
  /**
   * Resolves `true` once a signal or update may have let a waiting task run, `false` once
   * `timeoutMs` passed first (no timeout: waits for the change).
   */
  waitForChange(timeoutMs?: number): Promise<boolean>;
  /** True once this run should start no further subagent (history near its bounds). */
  historyFull(): boolean;
  /** True once this run should continue as new between supersteps. */
  shouldContinueAsNew(): boolean;
  /**
   * Shows the run's progress outside its history (the Web UI's details, the memo, the search
   * attributes), as the state says it: publishing reads the state and never changes it.
   */
  publish(state: Readonly<SwarmState>): void;
  warn(message: string, attributes: Record<string, unknown>): void;
}

/** How a swarm run is driven. */
export interface SwarmDriverOptions {
  place: RunPlace;
  /** Most instances in flight at once. */
  maxConcurrent: number;
  /** How long to wait for an `addInput` signal once nothing can run but inputs are missing. */
  waitForInputsMs: number;
}

/** How {@link driveSwarm} ends: a result, or the state the next run of the chain starts from. */
export type SwarmEnding =
  | { next: 'finished'; result: SwarmResult }
  | { next: 'continue-as-new'; carried: CarriedState };

/**
 * Drives a swarm run, the one owner of its state: in each superstep every ready instance runs
 * (at most `maxConcurrent` at once, a loop's `max_concurrency` of its own), the outcomes fold in
 * task order, the context pool is pruned and capped. With nothing to run it waits for an answer
 * to a gate (until its deadline) or for a missing input (`waitForInputsMs`), then fails what can
 * never run. Ends with the supervisor's answer and the context metrics, or hands over to the
 * next run when history grows: mid-superstep, the instances not started resume there first.
 *
 * @example
 * ```ts
 * const state = createSwarmState(definition, { input });
 * const ending = await driveSwarm(state, port, { place, maxConcurrent: 200, waitForInputsMs: 0 });
 * if (ending.next === 'continue-as-new') return continueAsNew({ ...input, carried: ending.carried });
 * ```
 */
export async function driveSwarm(
  state: SwarmState,
  port: SwarmPort,
  options: SwarmDriverOptions,
): Promise<SwarmEnding> {
  const slots = new TaskSlots(loopCaps(state.definition.tasks));
  port.publish(state);
  for (;;) {
    const { instances, lostInputs, indexes } = nextStep(state, port.now());
    for (const lost of lostInputs) port.warn('resumed instance lost inputs', lost);
    if (indexes.length > 0) {
      await indexStoredLists(state, port, options.place, indexes);
      continue;
    }
    if (instances.length === 0) {
      if (state.tasks.allFinished()) break;
      if (openGates(state).length > 0) {
        // Gates wait for an answer (an update), or for the first of their timeouts.
        port.publish(state);
        const deadline = nextGateDeadline(state);
        await port.waitForChange(deadline === undefined ? undefined : Math.max(1, deadline - port.now()));
        continue;
      }
      // Nothing can run: tasks wait on inputs that nobody will write unless a signal adds them.
      if (await port.waitForChange(options.waitForInputsMs)) continue;
      failUnresolved(state, port.now());
      port.publish(state);
      break;
    }
    const plans = await planContexts(state, port, instances);
    const outcomes = await runPool(
      instances,
      options.maxConcurrent,
      (item) =>
        slots.run(item.task, async () => {
          const outcome = await runInstance(state, port, options.place, item, plans[item.task]);
          // Counted by the progress query until the fold below (never by what the run decides).
          state.settled.set(item.task, (state.settled.get(item.task) ?? 0) + 1);
          return outcome;
        }),
      { shouldStop: () => port.historyFull() },
    );
    state.settled.clear();
    // Items start in order: the outcomes are those of a prefix of `instances`.
    foldOutcomes(state, instances.slice(0, outcomes.length), outcomes, port.now());
    const unstarted = [...new Set(instances.slice(outcomes.length).map((item) => item.task))];
    await storeResults(state, port, options.place, false);
    await pruneContextPool(state, port);
    state.pool = capPool(state.pool, state.definition, taskProgress(state), state.poolCap).pool;
    port.publish(state);
    if (unstarted.length > 0 || port.shouldContinueAsNew()) {
      // Nothing unstored is carried: the loops' records folded so far go to the store first.
      await storeResults(state, port, options.place, true);
      return { next: 'continue-as-new', carried: carriedState(state, unstarted) };
    }
  }
  return { next: 'finished', result: await finish(state, port, options.place) };
}

/** Indexes the map loops' stored lists (in parallel) and records each outcome, in task order. */
async function indexStoredLists(
  state: SwarmState,
  port: SwarmPort,
  place: RunPlace,
  requests: readonly IndexRequest[],
): Promise<void> {
  const outcomes = await Promise.all(
    requests.map((request) =>
      port.indexItems({
        workflowId: place.workflowId,
        ownerId: place.ownerId,
        task: request.task,
        source: request.source.source,
        ...(request.source.status === undefined ? {} : { status: request.source.status }),
        maxItems: request.maxItems,
        ...(place.dataPlane === undefined ? {} : { dataPlane: place.dataPlane }),
        ...(place.readRuns === undefined || place.readRuns.length === 0
          ? {}
          : { readRuns: [...place.readRuns] }),
      }),
    ),
  );
  requests.forEach((request, index) => {
    const source = {
      source: request.source.source,
      ...(request.source.status === undefined ? {} : { status: request.source.status }),
    };
    const items: MapItems = { ...source, ...(outcomes[index] as MapItems) };
    state.tasks.apply(request.task, { type: 'items', items }, port.now());
  });
}

/**
 * Stores the loops' results due now (chunks of their records, then the manifests of those that
 * ended), each part a local activity whose out id is recorded; `flush` stores everything folded,
 * before the run continues as new.
 */
async function storeResults(
  state: SwarmState,
  port: SwarmPort,
  place: RunPlace,
  flush: boolean,
): Promise<void> {
  for (let parts = resultsParts(state, flush); parts.length > 0; parts = resultsParts(state, flush)) {
    const outIds = await Promise.all(
      parts.map((part) =>
        port.writeManifestPart({
          ...part,
          workflowId: place.workflowId,
          ownerId: place.ownerId,
          ...(place.dataPlane === undefined ? {} : { dataPlane: place.dataPlane }),
        }),
      ),
    );
    for (const [index, part] of parts.entries())
      storedResultsPart(state, part, outIds[index] as string, port.now());
  }
}

/**
 * The context of every task about to run, chosen from the pool, with the loops it names (one
 * local activity per superstep, none when `contextRequest` finds nothing to plan). Chosen
 * outputs count as read, for LRU pruning.
 */
async function planContexts(
  state: SwarmState,
  port: SwarmPort,
  instances: readonly ScheduledInstance[],
): Promise<Record<string, ContextPlan>> {
  const request = contextRequest(state, instances, port.now());
  if (request === undefined) return {};
  try {
    const plans = await port.planContext(request);
    state.pool = markRead(state.pool, plans, request.now);
    return plans;
  } catch (error) {
    // A context is a help, not a precondition: run the tasks without one rather than stop.
    port.warn('context planning failed; tasks run without context', { error: (error as Error).message });
    return {};
  }
}

/** Runs the `hooks.post_task` prunes that are due; a prune that fails is retried at the next step. */
async function pruneContextPool(state: SwarmState, port: SwarmPort): Promise<void> {
  const { definition } = state;
  for (const { index, hook, sinceCheckpoint } of duePrunes(state.pool, definition)) {
    const now = port.now();
    try {
      const removed = await port.pruneContext({
        definition,
        pool: state.pool,
        hook,
        sinceCheckpoint,
        now,
        pending: unfinishedTasks(state),
      });
      state.pool = applyPrune(state.pool, index, removed, now);
    } catch (error) {
      port.warn('context pruning failed; the pool stays as it is', { error: (error as Error).message });
    }
  }
}

/**
 * Runs one instance, unless its task was cancelled before the instance could start, or this run
 * reuses an earlier run's result for it (a re-run): that result folds as it is.
 */
async function runInstance(
  state: SwarmState,
  port: SwarmPort,
  place: RunPlace,
  item: ScheduledInstance,
  context: ContextPlan | undefined,
): Promise<InstanceOutcome> {
  const cancelled = state.tasks.cancelReason(item.task);
  if (cancelled !== undefined) return { cancelled: true, reason: cancelled };
  const reused = reusedResult(state, item);
  if (reused !== undefined) return reused;
  return port.runInstance(subagentCall(state, item, place, context));
}

/** The supervisor's answer (when the swarm has one) and the context metrics, then the result. */
async function finish(state: SwarmState, port: SwarmPort, place: RunPlace): Promise<SwarmResult> {
  const { definition } = state;
  let supervisor: SuperviseResult | undefined;
  if (definition.supervisor !== undefined) {
    state.status = 'supervising';
    port.publish(state);
    const call = supervisorCall(state, place);
    // The swarm's outputs stand whatever the supervisor does: its failure is reported beside them.
    supervisor =
      call === undefined
        ? { answer: '', evidenceBytes: 0, error: `agent ${definition.supervisor.agent} is not defined` }
        : await port.supervise(call);
    state.pendingCalls = endToolCalls(state.pendingCalls, 'supervisor');
  }
  let context: SwarmContextMetrics | undefined;
  // Every task has finished: the final table is known before the pool is measured.
  const summary = ['Final report', ...finalReport(swarmResult(state, { supervisor }), place.workflowId)].join(
    '\n',
  );
  try {
    context = await port.contextMetrics({ definition, pool: state.pool }, { summary });
  } catch (error) {
    // The swarm's outcome stands; only this figure is missing.
    port.warn('context metrics failed', { error: (error as Error).message });
  }
  const result = swarmResult(state, { supervisor, context });
  state.status = result.status;
  port.publish(state);
  return result;
}
