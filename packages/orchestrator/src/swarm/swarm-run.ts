// Pure: one swarm run as a state machine. No Temporal import: the workflow
// (workflows/swarm-driver.ts) drives it and passes in every timestamp.
import type { ChannelSnapshot } from '@wharf/channels';
import { type PendingApproval, pendingApprovals } from '../control/approval-gate.js';
import { instanceLabel, isLooped } from '../dsl/task-instances.js';
import { WharfOrchestratorError } from '../orchestrator-error.js';
import type { SwarmDefinition, TaskDefinition } from '../shared/swarm-schema.js';
import { isFinished, isOpen } from '../shared/task-status.js';
import type {
  AddInputsRequest,
  AddInputsResult,
  ApproveTaskRequest,
  ApproveTaskResult,
  CarriedState,
  ContextLoopOutputs,
  MapItems,
  PendingToolCall,
  ReusedResults,
  SubagentResult,
  SuperviseResult,
  SwarmContextMetrics,
  SwarmProgress,
  SwarmResult,
  TaskStatus,
  ToolCallNotice,
} from '../shared/types.js';
import { type ContextPoolState, DEFAULT_CONTEXT_POOL_CAP } from './context-pool-state.js';
import { applyWrites, foldStep, type InstanceOutcome } from './fold-step.js';
import { applyPlan, planStep, type ResumedStep, resumeStep, type ScheduledInstance } from './plan-step.js';
import { type ResultsPart, resultsParts, storedResultsPart } from './stored-results.js';
import { orderedCompacts, swarmOutputs, swarmProgress, swarmResult, taskProgress } from './swarm-report.js';
import {
  carriedState,
  createSwarmState,
  instanceTotal,
  type SwarmState,
  taskResults,
  taskSpec,
  unfinishedTasks,
} from './swarm-state.js';
import type { TaskEvent } from './task-state.js';

export type { InstanceOutcome } from './fold-step.js';
export type { IndexRequest, ScheduledInstance } from './plan-step.js';
export type { ResultsPart } from './stored-results.js';

/** What {@link SwarmRun.nextStep} returns. */
export type PlannedStep = ResumedStep;

/** Options of the {@link SwarmRun} constructor. */
export interface SwarmRunOptions {
  definition: SwarmDefinition;
  /** Values for `†input.*` (ignored when `carried` holds the context). */
  input?: Record<string, unknown>;
  /** State the previous run of a continue-as-new chain carried over. */
  carried?: CarriedState;
  /** Most entries the context pool keeps (see `ContextPoolState.applyCap`). Default 500. */
  contextPoolCap?: number;
  /** Results of an earlier run to fold instead of running those tasks (a re-run). */
  reuse?: ReusedResults;
}

/**
 * One swarm run as a state machine, free of Temporal: its {@link SwarmState} and the few
 * moves the workflow makes on it. Planning ({@link nextStep}: `planStep`, `resumeStep`) and
 * folding ({@link fold}: `foldStep`) are pure functions of the state that return task
 * transitions and writes; `applyPlan` and `applyWrites` apply them, and every task transition,
 * the handlers' too ({@link cancel}, {@link answerApproval}), goes through the task board's
 * one transition function.
 *
 * @example
 * ```ts
 * const run = new SwarmRun({ definition, input: {} });
 * const { instances } = run.nextStep(Date.now());
 * run.fold(instances, await Promise.all(instances.map(runSubagent)), Date.now());
 * run.progress().tasks; // [{ task: 'fetch', status: 'done', outIds: ['out_…'], … }]
 * ```
 */
export class SwarmRun {
  readonly definition: SwarmDefinition;
  readonly taskNames: readonly string[];
  /** Continue-as-new runs before this one. */
  readonly generation: number;
  /** The swarm's own status, as the `progress` query reports it. */
  status: SwarmProgress['status'] = 'running';
  readonly #state: SwarmState;
  readonly #poolCap: number;

  constructor(options: SwarmRunOptions) {
    this.#state = createSwarmState(options.definition, {
      ...(options.input === undefined ? {} : { input: options.input }),
      carried: options.carried,
      reuse: options.reuse,
    });
    this.definition = options.definition;
    this.taskNames = this.#state.taskNames;
    this.generation = this.#state.generation;
    this.#poolCap = Math.max(1, Math.floor(options.contextPoolCap ?? DEFAULT_CONTEXT_POOL_CAP));
  }

  /**
   * The result an earlier run stored for this instance, when this run reuses its task (a
   * re-run): folded as it is, instead of running the instance. `undefined`: the instance runs.
   */
  reused(item: ScheduledInstance): SubagentResult | undefined {
    const { reuse } = this.#state;
    if (!reuse.has(item.task)) return undefined;
    return reuse.result(item.task, item.instance, instanceTotal(this.#state, item.task));
  }

  /** The reused results not folded yet, for the next run of the chain; `undefined` when none are left. */
  remainingReuse(): ReusedResults | undefined {
    return this.#state.reuse.remaining((task) => isFinished(this.#state.tasks.get(task).status));
  }

  /** Supersteps run so far, across the whole continue-as-new chain. */
  get step(): number {
    return this.#state.step;
  }

  /** The context pool: what later tasks' contexts are chosen from. */
  get contextPool(): ContextPoolState {
    return this.#state.pool;
  }

  /** The durable channel snapshot (the `state` query). */
  channels(): ChannelSnapshot {
    return this.#state.channels.snapshot();
  }

  /** The task's definition; a typed error (code `INVALID_REQUEST`) for a task the swarm does not have. */
  spec(task: string): TaskDefinition {
    return taskSpec(this.#state, task);
  }

  /** `task` for a task without a loop, `task#i` for loop instance `i`. */
  label(task: string, instance: number): string {
    return instanceLabel(task, this.spec(task), instance);
  }

  /**
   * What a task's dependencies give it as IN_REFS: the out ids of those that list them all, the
   * manifests of loops with more (the worker reads their out ids from the store).
   */
  inputRefs(task: string): { refs: string[]; manifests: string[] } {
    const refs: string[] = [];
    const manifests: string[] = [];
    for (const dependency of this.spec(task).depends_on) {
      const results = taskResults(this.#state, dependency);
      if (results.outIds.length === results.outCount) refs.push(...results.outIds);
      else if (results.manifest !== undefined) manifests.push(results.manifest);
    }
    return { refs, manifests };
  }

  /**
   * The manifests of the loops whose out ids are not all listed inline (more than 64 outputs):
   * the supervisor, shown only a few of their compacts, reads the rest from these.
   */
  loopManifests(): string[] {
    const manifests: string[] = [];
    for (const task of this.#state.taskNames) {
      const results = taskResults(this.#state, task);
      if (results.manifest !== undefined && results.outIds.length < results.outCount)
        manifests.push(results.manifest);
    }
    return manifests;
  }

  /** A loop's instance count: its repeat count, or a map loop's items once known. */
  instanceTotal(task: string): number {
    return instanceTotal(this.#state, task);
  }

  /** Records what indexing a map loop's stored list gave: its index and item count, or why it is no list. */
  recordItems(task: string, items: MapItems, now: number): void {
    this.#state.tasks.apply(task, { type: 'items', items }, now);
  }

  /**
   * The parts of the loops' results to store now (see `resultsParts`); `flush` before the run
   * continues as new, so nothing unstored is carried.
   */
  resultsParts(flush: boolean): ResultsPart[] {
    return resultsParts(this.#state, flush);
  }

  /** Records a stored part of a loop's results (see `storedResultsPart`). */
  storedResultsPart(part: ResultsPart, outId: string, now: number): void {
    storedResultsPart(this.#state, part, outId, now);
  }

  /** Adds `†input.<key>` (from a signal); `date` is an ISO timestamp from the workflow clock. */
  addInput(key: string, value: unknown, date: string): void {
    this.#state.context.addInput(key, value, date);
  }

  /**
   * Throws a typed error (code `INVALID_REQUEST`) naming the `†input.*` keys of `request` that
   * already hold a value, unless `request.replace`: a second value never silently replaces the
   * first. An empty request is refused too.
   */
  checkInputs(request: AddInputsRequest): void {
    const keys = Object.keys(request.values);
    if (keys.length === 0) throw new WharfOrchestratorError('INVALID_REQUEST', 'no input values given');
    if (request.replace === true) return;
    const set = keys.filter((key) => this.#state.context.hasInput(key));
    if (set.length === 0) return;
    throw new WharfOrchestratorError(
      'INVALID_REQUEST',
      `${set.map((key) => `†input.${key}`).join(', ')} ${set.length === 1 ? 'is' : 'are'} already set; replace ${set.length === 1 ? 'it' : 'them'} explicitly (wharf input --replace, or addInputs with replace: true)`,
    );
  }

  /**
   * Adds `†input.*` values (see {@link checkInputs}) in the order given; returns which keys were
   * new and which replaced a value. Tasks that already read a replaced value keep what they read.
   */
  addInputs(request: AddInputsRequest, date: string): AddInputsResult {
    this.checkInputs(request);
    const result: AddInputsResult = { added: [], replaced: [] };
    for (const [key, value] of Object.entries(request.values)) {
      (this.#state.context.hasInput(key) ? result.replaced : result.added).push(key);
      this.#state.context.addInput(key, value, date);
    }
    return result;
  }

  /**
   * Cancels a task that has not finished: it reads `cancelled`, its instances still to start do
   * not, and its dependents are skipped. A finished task stays as it is.
   */
  cancel(task: string, reason: string | undefined, now: number): { cancelled: boolean; status: TaskStatus } {
    const before = this.#state.tasks.get(task).status;
    const { status } = this.#state.tasks.apply(task, { type: 'cancel', reason }, now);
    return { cancelled: status !== before, status };
  }

  /** Why the task was cancelled, or `undefined` while it is not. */
  cancelReason(task: string): string | undefined {
    return this.#state.tasks.cancelReason(task);
  }

  /**
   * Throws a typed error (code `INVALID_REQUEST`) naming why `request` cannot answer a gate: an
   * unknown task, one without `approval:`, one already finished or already answered.
   */
  checkApproval(request: ApproveTaskRequest): void {
    // Whether an answer is refused does not depend on the time.
    this.#state.tasks.check(request.task, this.#answer(request), 0);
  }

  /**
   * Answers a task's gate (see {@link checkApproval}): approved, it runs at the next step;
   * rejected, it is skipped or failed at once (its `on_reject`) with the answer as its reason.
   */
  answerApproval(request: ApproveTaskRequest, now: number): ApproveTaskResult {
    const entry = this.#state.tasks.apply(request.task, this.#answer(request), now);
    return {
      task: request.task,
      decision: entry.approval?.decision ?? (request.approve ? 'approved' : 'rejected'),
      status: entry.status,
    };
  }

  /**
   * Notes what an agent workflow told the swarm about one of its tool calls: it waits for a
   * person (`open`), or no longer. Shown with the gates (progress, memo, Web UI, search attribute).
   */
  noteToolCall(notice: ToolCallNotice): void {
    const same = (call: PendingToolCall) =>
      call.workflowId === notice.call.workflowId && call.callId === notice.call.callId;
    const others = this.#state.pendingCalls.filter((call) => !same(call));
    this.#state.pendingCalls.splice(0, this.#state.pendingCalls.length, ...others);
    if (notice.open) this.#state.pendingCalls.push({ ...notice.call });
  }

  /** Drops the tool calls `owner` (an instance label, `supervisor`) held: it has ended. */
  endToolCalls(owner: string): void {
    if (this.#state.pendingCalls.length === 0) return;
    const held = this.#state.pendingCalls.filter((call) => call.owner !== owner);
    this.#state.pendingCalls.splice(0, this.#state.pendingCalls.length, ...held);
  }

  /** The tool calls of agent tasks waiting for a person, oldest first. */
  pendingToolCalls(): PendingToolCall[] {
    return this.#state.pendingCalls.map((call) => ({ ...call }));
  }

  /** The task gates waiting for an answer, in task order (tool calls: {@link pendingToolCalls}). */
  pendingApprovals(): PendingApproval[] {
    return pendingApprovals({ tasks: taskProgress(this.#state) });
  }

  /** The earliest deadline of a gate waiting for an answer, if any has one. */
  nextApprovalDeadline(): number | undefined {
    const deadlines = this.pendingApprovals().flatMap((gate) =>
      gate.deadline === undefined ? [] : [gate.deadline],
    );
    return deadlines.length === 0 ? undefined : Math.min(...deadlines);
  }

  /** The tasks that have not finished yet (pending, waiting or running), in task order. */
  unfinishedTasks(): string[] {
    return unfinishedTasks(this.#state);
  }

  /** True once every task has finished (done, failed, skipped or cancelled). */
  allFinished(): boolean {
    return this.#state.tasks.allFinished();
  }

  /** Fails every task still waiting for inputs: nobody will write them. */
  failUnresolved(now: number): void {
    for (const task of this.taskNames)
      if (isOpen(this.#state.tasks.get(task).status))
        this.#state.tasks.apply(task, { type: 'unresolved' }, now);
  }

  /**
   * The next superstep: the instances a previous run left unstarted when there are any, else
   * every ready task (`planStep`, applied; skipped and waiting tasks are marked on the way,
   * started tasks consume their join barrier). Counts the step when something runs. When a map
   * loop's stored list must be indexed first, returns those (`indexes`) and nothing to run:
   * index them, `recordItems`, and ask again.
   */
  nextStep(now: number): PlannedStep {
    const resume = this.#state.resume;
    this.#state.resume = [];
    let planned: PlannedStep;
    if (resume.length > 0) planned = resumeStep(this.#state, resume);
    else {
      planned = { instances: [], lostInputs: [], indexes: [] };
      for (let replan = true; replan; ) {
        const plan = planStep(this.#state, now);
        if (plan.indexes.length > 0) {
          // Index the stored lists first; what this step already planned runs meanwhile.
          if (planned.instances.length === 0) planned.indexes = plan.indexes;
          break;
        }
        applyPlan(this.#state, plan, now);
        for (const instance of plan.instances) planned.instances.push(instance);
        replan = plan.replan;
      }
    }
    if (planned.instances.length > 0) this.#state.step += 1;
    return planned;
  }

  /** Tasks of `instances` that take a context (`inject_context` on, `context.mode` not `none`). */
  contextTasks(instances: readonly ScheduledInstance[]): string[] {
    return [...new Set(instances.map((item) => item.task))].filter((task) => {
      const spec = this.spec(task);
      return spec.inject_context !== false && spec.context?.mode !== 'none';
    });
  }

  /**
   * What the context planner needs of each loop that has folded instances: its `ok` count and,
   * once it has ended, its manifest (a context shows only a loop's newest pooled outputs and
   * names the rest by the manifest). One entry per loop task, whatever its width.
   */
  contextLoops(): Record<string, ContextLoopOutputs> {
    const loops: Record<string, ContextLoopOutputs> = {};
    for (const task of this.#state.taskNames) {
      if (!isLooped(this.spec(task))) continue;
      const results = taskResults(this.#state, task);
      if (results.done === 0) continue;
      loops[task] = {
        ok: results.ok,
        ...(results.manifest === undefined ? {} : { manifest: results.manifest }),
      };
    }
    return loops;
  }

  /**
   * Folds one superstep's outcomes in the order of `instances` (`foldStep`, applied). A finished
   * agent instance holds no tool call any more: its calls leave the pending list.
   */
  fold(instances: readonly ScheduledInstance[], outcomes: readonly InstanceOutcome[], now: number): void {
    applyWrites(this.#state, foldStep(this.#state, instances, outcomes, now), now);
    for (const item of instances) this.endToolCalls(this.label(item.task, item.instance));
  }

  /**
   * Keeps the context pool at the run's cap, the outputs unfinished tasks still read first
   * (see `ContextPoolState.applyCap`). Returns the task ids removed from the pool.
   */
  capContextPool(): string[] {
    return this.#state.pool.applyCap(this.definition, taskProgress(this.#state), this.#poolCap);
  }

  /** The state to carry over continue-as-new; `resume` names the tasks whose loop instances this run left unstarted. */
  carry(resume: readonly string[] = []): CarriedState {
    return carriedState(this.#state, resume);
  }

  /** What the `progress` query reports. */
  progress(): SwarmProgress {
    return swarmProgress(this.#state, this.status);
  }

  /**
   * The swarm's result once every task finished: failed when a task failed (a skipped one does
   * not count) or the supervisor could not answer.
   */
  result(ending: {
    supervisor?: SuperviseResult | undefined;
    context?: SwarmContextMetrics | undefined;
  }): SwarmResult {
    return swarmResult(this.#state, ending);
  }

  /** Out ids per task, loop instances in order. */
  outputs(): Record<string, string[]> {
    return swarmOutputs(this.#state);
  }

  /** One compact payload per finished instance, in task order then instance order. */
  orderedCompacts(): string[] {
    return orderedCompacts(this.#state);
  }

  /** The answer to a task's gate as a task event; a typed error for a task without one. */
  #answer(request: ApproveTaskRequest): TaskEvent {
    const gate = this.spec(request.task).approval;
    if (gate === undefined)
      throw new WharfOrchestratorError('INVALID_REQUEST', `task ${request.task} has no approval gate`);
    return { type: 'answer', gate, request };
  }
}
