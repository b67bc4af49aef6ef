// Pure: what the next superstep of a swarm run does, read from its state as task transitions,
// channel writes and the instances to start. Runs inside the workflow sandbox; applyPlan is
// the one place a plan changes the state, and nextStep the one the driver calls.
import { ChannelUpdate } from '@wharf/channels';
import type { TaskState } from '../contracts/progress-contracts.js';
import type { ReusedLoop } from '../contracts/swarm-contracts.js';
import { isOpen } from '../contracts/task-status.js';
import { expandMapLoop, type StoredListSource } from './expand-map-loop.js';
import { planTasks, type StoredItems } from './plan-tasks.js';
import { recordReusedLoop } from './stored-results.js';
import { channelNames } from './swarm-channels.js';
import { instanceTotal, type SwarmState, taskResults, taskSpec } from './swarm-state.js';
import { nextTaskState, type TaskTransition } from './task-state.js';

/** One loop instance (or the one run of a task without a loop) chosen to run in a superstep. */
export interface ScheduledInstance {
  task: string;
  instance: number;
  inputs: Record<string, unknown>;
  /** A map loop over a stored list: the worker reads the instance's `item` through this index. */
  stored?: StoredItems;
}

/** A map loop's stored list to index before the loop can start. */
export interface IndexRequest {
  task: string;
  source: StoredListSource;
  maxItems: number;
}

/** What {@link planStep} decides: nothing here has happened until {@link applyPlan}. */
export interface StepPlan {
  /** Task transitions in order: gates past their deadline first, then every open task in task order. */
  transitions: TaskTransition[];
  /** Join barriers of the tasks that start (each fires once per start). */
  consumed: string[];
  /** Map loops over an empty list end at once: their dependents' join barriers hear of it. */
  releases: ChannelUpdate[];
  /** True when a map loop ended at once: its dependents may run in this very step, so plan again. */
  replan: boolean;
  /** The instances to run, in task order. */
  instances: ScheduledInstance[];
  /**
   * Map loops whose stored list must be indexed first. When there are any, nothing else is
   * planned (no transition, no instance): index them, record it, and plan again.
   */
  indexes: IndexRequest[];
  /** Loops a re-run reuses whole: they start and end at once, and their dependents are released. */
  reusedLoops: { task: string; loop: ReusedLoop['loop'] }[];
}

/** The instances a previous run left unstarted, and those whose inputs no longer resolve. */
export interface ResumedStep {
  instances: ScheduledInstance[];
  /** Resumed instances whose inputs no longer resolve (they run with no inputs). */
  lostInputs: { task: string; instance: number }[];
  /** Map loops whose stored list must be indexed before anything runs (see {@link StepPlan.indexes}). */
  indexes: IndexRequest[];
}

/** What a gate is when the definition lost it (never, for a validated definition). */
const defaultGate = { on_timeout: 'reject', on_reject: 'skip' } as const;

/**
 * Plans one superstep from the state at `now`, changing nothing: gates whose deadline passed
 * are decided by their `on_timeout`; then every pending or waiting task is skipped, failed,
 * held at its gate, left waiting, or started with its instances (`planTasks` decides which).
 *
 * @example
 * ```ts
 * const plan = planStep(state, now);
 * applyPlan(state, plan, now);
 * plan.instances; // [{ task: 'fetch', instance: 0, inputs: {} }]
 * ```
 */
export function planStep(state: SwarmState, now: number): StepPlan {
  const plan: StepPlan = {
    transitions: [],
    consumed: [],
    releases: [],
    replan: false,
    instances: [],
    indexes: [],
    reusedLoops: [],
  };
  // What this plan already decided, for the decisions after it (a gate rejected by timeout is skipped now).
  const decided = new Map<string, TaskState>();
  const current = (task: string): TaskState => decided.get(task) ?? state.tasks.get(task);
  for (const task of state.taskNames) {
    const gate = taskSpec(state, task).approval;
    const approval = state.tasks.get(task).approval;
    if (gate === undefined || approval?.deadline === undefined || approval.decision !== undefined) continue;
    const next = nextTaskState(task, state.tasks.get(task), { type: 'expire', gate }, now);
    if (next.approval?.decision === undefined) continue;
    plan.transitions.push({ task, event: { type: 'expire', gate } });
    decided.set(task, next);
  }
  const decisions = planTasks({
    definition: state.definition,
    status: (task) => current(task).status,
    joined: (task) => state.channels.isReady(channelNames.join(task)),
    resolve: (task, instance) =>
      state.context.resolveInputs(task, taskSpec(state, task).inputs, instance, state.kinds),
    evaluate: (task, expression) => state.context.evaluate(task, expression),
    approved: (task, instances) =>
      taskSpec(state, task).approval === undefined ||
      current(task).approval?.decision === 'approved' ||
      state.reuse.covers(task, instances),
    items: (task) => state.tasks.get(task).items,
  });
  for (const decision of decisions) {
    if (decision.action === 'index')
      plan.indexes.push({ task: decision.task, source: decision.source, maxItems: decision.maxItems });
  }
  if (plan.indexes.length > 0) return { ...plan, transitions: [] };
  for (const decision of decisions) {
    const { task } = decision;
    const spec = taskSpec(state, task);
    switch (decision.action) {
      case 'skip':
      case 'fail':
        plan.transitions.push({ task, event: { type: decision.action, reason: decision.reason } });
        break;
      case 'wait':
        plan.transitions.push({ task, event: { type: 'wait', waitingFor: decision.waitingFor } });
        break;
      case 'approval':
        plan.transitions.push({ task, event: { type: 'gate', gate: spec.approval ?? defaultGate } });
        break;
      case 'index':
        break;
      case 'run': {
        if (spec.depends_on.length > 0) plan.consumed.push(channelNames.join(task));
        const map = spec.loop?.type === 'map';
        const { total } = decision;
        plan.transitions.push({ task, event: { type: 'start', ...(map ? { total } : {}) } });
        // A loop a re-run reuses whole runs no instance: its summary and manifest are recorded.
        const reused = state.reuse.loop(task, total);
        if (reused !== undefined) plan.reusedLoops.push({ task, loop: reused });
        else pushInstances(plan.instances, { ...decision, from: 0 });
        if ((map && total === 0) || reused !== undefined) {
          // A map loop over an empty list, or reused whole, is done at once: its dependents are released now.
          plan.transitions.push({ task, event: { type: 'end' } });
          plan.replan = true;
          const arrivals: [string, unknown][] = dependentsOf(state, task).map((other) => [
            channelNames.join(other),
            { [task]: reused?.outIds[0] ?? null },
          ]);
          if (arrivals.length > 0)
            plan.releases.push(ChannelUpdate.fromList(arrivals, { label: `${task} done` }));
        }
      }
    }
  }
  return plan;
}

/**
 * Plans and applies the next superstep at `now`: the instances a previous run left unstarted
 * when there are any ({@link resumeStep}), else every ready task ({@link planStep}, applied;
 * skipped and waiting tasks are marked on the way, started tasks consume their join barrier,
 * and a map loop that ended at once lets its dependents join this very step). Counts the step
 * when something runs. When a map loop's stored list must be indexed first, returns those
 * (`indexes`) and nothing to run: index them, record the items (a task event `items`), and ask
 * again.
 *
 * @example
 * ```ts
 * const { instances, indexes } = nextStep(state, now);
 * ```
 */
export function nextStep(state: SwarmState, now: number): ResumedStep {
  const resume = state.resume;
  state.resume = [];
  let planned: ResumedStep;
  if (resume.length > 0) planned = resumeStep(state, resume);
  else {
    planned = { instances: [], lostInputs: [], indexes: [] };
    for (let replan = true; replan; ) {
      const plan = planStep(state, now);
      if (plan.indexes.length > 0) {
        // Index the stored lists first; what this step already planned runs meanwhile.
        if (planned.instances.length === 0) planned.indexes = plan.indexes;
        break;
      }
      applyPlan(state, plan, now);
      for (const instance of plan.instances) planned.instances.push(instance);
      replan = plan.replan;
    }
  }
  if (planned.instances.length > 0) state.step += 1;
  return planned;
}

/**
 * Fails every task still waiting for inputs: nothing can run and nobody will write them.
 *
 * @example
 * ```ts
 * if (!(await port.waitForChange(waitForInputsMs))) failUnresolved(state, port.now());
 * ```
 */
export function failUnresolved(state: SwarmState, now: number): void {
  for (const task of state.taskNames)
    if (isOpen(state.tasks.get(task).status)) state.tasks.apply(task, { type: 'unresolved' }, now);
}

/**
 * Applies a plan: its task transitions (through the task board), the join barriers its tasks
 * consumed, and the releases of map loops that ended at once (folded into the current step).
 *
 * @example
 * ```ts
 * applyPlan(state, planStep(state, now), now);
 * ```
 */
export function applyPlan(state: SwarmState, plan: StepPlan, now: number): void {
  for (const { task, event } of plan.transitions) state.tasks.apply(task, event, now);
  for (const channel of plan.consumed) state.channels.consume(channel);
  for (const { task, loop } of plan.reusedLoops) recordReusedLoop(state, task, loop, now);
  if (plan.releases.length > 0) state.channels.foldSuperstep(state.step, plan.releases);
}

/**
 * The instances a previous run left unstarted, of `tasks` cut by a history bound. A running
 * task's instances start in order, so they are those from the number already folded on. The
 * context only grows, so inputs (and a map loop's list) that resolved when the task started
 * still do; when they no longer resolve the instances run with none and are reported.
 *
 * @example
 * ```ts
 * resumeStep(state, ['fan']).instances; // fan#10 … fan#23
 * ```
 */
export function resumeStep(state: SwarmState, tasks: readonly string[]): ResumedStep {
  const resumed: ResumedStep = { instances: [], lostInputs: [], indexes: [] };
  for (const task of tasks) {
    const spec = taskSpec(state, task);
    const total = instanceTotal(state, task);
    const from = taskResults(state, task).done;
    const resolution = state.context.resolveInputs(task, spec.inputs, undefined, state.kinds);
    const inputs = resolution.ready ? resolution.values : {};
    const indexed = state.tasks.get(task).items;
    let items: readonly unknown[] | undefined;
    let stored: StoredItems | undefined;
    let lost = !resolution.ready;
    if (spec.loop?.type === 'map') {
      if (indexed !== undefined && 'index' in indexed)
        stored = { index: indexed.index, format: indexed.format };
      else {
        items = mapItems(state, task, spec.loop.over);
        if (items === undefined || items.length < total) lost = true;
      }
    }
    const start = resumed.instances.length;
    pushInstances(resumed.instances, {
      task,
      from,
      total,
      inputs,
      ...(items === undefined ? {} : { items }),
      ...(stored === undefined ? {} : { stored }),
      map: spec.loop?.type === 'map',
    });
    if (lost)
      for (const item of resumed.instances.slice(start))
        resumed.lostInputs.push({ task, instance: item.instance });
  }
  return resumed;
}

/**
 * Appends a task's instances `from` … `total - 1`: each with the task's inputs, and for a map
 * loop its `item` (from `items`; read by the worker through `stored`) and `index`.
 */
function pushInstances(
  into: ScheduledInstance[],
  batch: {
    task: string;
    from: number;
    total: number;
    inputs: Record<string, unknown>;
    items?: readonly unknown[] | undefined;
    stored?: StoredItems | undefined;
    map?: boolean;
  },
): void {
  const { task, inputs, items, stored } = batch;
  const map = batch.map ?? (items !== undefined || stored !== undefined);
  for (let instance = batch.from; instance < batch.total; instance++) {
    if (!map) into.push({ task, instance, inputs });
    else if (stored !== undefined)
      into.push({ task, instance, inputs: { ...inputs, index: instance }, stored });
    else
      into.push({ task, instance, inputs: { ...inputs, item: items?.[instance] ?? null, index: instance } });
  }
}

/**
 * The tasks that depend on `task`, in task order: whose join barriers it releases when done.
 *
 * @example
 * ```ts
 * dependentsOf(state, 'fetch'); // ['clean', 'report']
 * ```
 */
export function dependentsOf(state: SwarmState, task: string): string[] {
  return state.taskNames.filter((other) => taskSpec(state, other).depends_on.includes(task));
}

/** A map loop's items as its list resolves now (undefined when it does not, or is no list in context). */
function mapItems(state: SwarmState, task: string, over: string): unknown[] | undefined {
  const resolution = state.context.evaluate(task, over);
  if (!resolution.ready) return undefined;
  const expansion = expandMapLoop(resolution.values.value);
  return expansion.ok && 'items' in expansion ? expansion.items : undefined;
}
