// Pure: the state of one swarm run and the rules that change it. No Temporal import: the
// workflow (workflows/swarm-workflow.ts) drives it, and passes in every timestamp.
import { type ChannelSnapshot, ChannelState, ChannelUpdate } from '@wharf/channels';
import type { ResolveOptions } from '@wharf/context-resolver';
import {
  answerApproval,
  approvalVerdict,
  openApproval,
  type PendingApproval,
  pendingApprovals,
} from '../control/approval-gate.js';
import { expandMapLoop } from '../control/expand-map-loop.js';
import type { SwarmDefinition, TaskDefinition } from '../dsl/swarm-schema.js';
import { instanceLabel, isLooped } from '../dsl/task-instances.js';
import { WharfOrchestratorError } from '../orchestrator-error.js';
import { addUsage, swarmUsage } from '../shared/agent-usage.js';
import { isFinished } from '../shared/task-status.js';
import type {
  AgentUsage,
  ApproveTaskRequest,
  ApproveTaskResult,
  CarriedState,
  SubagentResult,
  SuperviseResult,
  SwarmContextMetrics,
  SwarmProgress,
  SwarmResult,
  TaskProgress,
  TaskStatus,
} from '../shared/types.js';
import { ContextPoolState } from './context-pool-state.js';
import { failureReaders, planTasks } from './plan-tasks.js';
import { failureReason } from './subagent-failure.js';
import { channelNames, type InstanceResult, swarmChannels } from './swarm-channels.js';
import { SwarmContext, taskOutputValue } from './swarm-context.js';
import { TaskBoard } from './task-board.js';
import {
  CHANNELS_KIND,
  type ChannelTargets,
  channelTargets,
  channelWrite,
  readChannel,
} from './user-channels.js';

/** One loop instance (or the one run of a task without a loop) chosen to run in a superstep. */
export interface ScheduledInstance {
  task: string;
  instance: number;
  inputs: Record<string, unknown>;
}

/** How one scheduled instance ended: the subagent's result, or cancelled before or while it ran. */
export type InstanceOutcome = SubagentResult | { cancelled: true; reason: string };

/** What {@link SwarmRun.nextStep} returns. */
export interface PlannedStep {
  /** The instances to run, in task order; empty when nothing can run now. */
  instances: ScheduledInstance[];
  /** Resumed instances whose inputs no longer resolve (they run with no inputs). */
  lostInputs: { task: string; instance: number }[];
}

/** Options of the {@link SwarmRun} constructor. */
export interface SwarmRunOptions {
  definition: SwarmDefinition;
  /** Values for `†input.*` (ignored when `carried` holds the context). */
  input?: Record<string, unknown>;
  /** State the previous run of a continue-as-new chain carried over. */
  carried?: CarriedState;
}

/**
 * The state of one swarm run and every rule that changes it, free of Temporal: which tasks run
 * next ({@link nextStep}), how a superstep's outcomes fold in task order ({@link fold}), what a
 * task's subagent reads ({@link outIds}, its IN_REFS), what carries over continue-as-new
 * ({@link carry}, restored by the constructor) and what the run reports ({@link progress},
 * {@link outputs}). The `results:<task>` channels are the one record of what each task produced:
 * out ids, bytes and instances done are read from them.
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
  status: SwarmProgress['status'] = 'running';
  /** Per task, the user channels its output writes. */
  readonly #channelTargets: Map<string, ChannelTargets>;
  readonly #kinds: ResolveOptions['kinds'];
  readonly #state: ChannelState;
  readonly #context: SwarmContext;
  readonly #compacts: Record<string, string>;
  readonly #pool: ContextPoolState;
  readonly #tasks: TaskBoard;
  #resume: string[];
  #step: number;

  constructor(options: SwarmRunOptions) {
    const { definition, carried } = options;
    this.definition = definition;
    this.taskNames = Object.keys(definition.tasks);
    this.#channelTargets = channelTargets(definition);
    this.#kinds = { [CHANNELS_KIND]: (path) => readChannel(this.#state, definition, path) };
    this.#state = new ChannelState(swarmChannels(definition));
    if (carried !== undefined) this.#state.restore(carried.channels);
    this.#context = new SwarmContext(carried?.context, options.input ?? {});
    this.#compacts = { ...(carried?.compacts ?? {}) };
    this.#pool = new ContextPoolState(carried?.contextPool);
    this.#resume = [...(carried?.resume ?? [])];
    this.#step = carried?.step ?? 0;
    this.generation = carried?.generation ?? 0;
    this.#tasks = new TaskBoard(this.taskNames, carried?.progress);
  }

  /** Supersteps run so far, across the whole continue-as-new chain. */
  get step(): number {
    return this.#step;
  }

  /** The context pool: what later tasks' contexts are chosen from. */
  get contextPool(): ContextPoolState {
    return this.#pool;
  }

  /** The durable channel snapshot (the `state` query). */
  channels(): ChannelSnapshot {
    return this.#state.snapshot();
  }

  /** True for a task of the definition. */
  hasTask(task: string): boolean {
    return this.#tasks.has(task);
  }

  /** The task's definition; a typed error for a task the swarm does not have. */
  spec(task: string): TaskDefinition {
    const spec = this.definition.tasks[task];
    if (spec === undefined) throw unknownTask(task, this.taskNames);
    return spec;
  }

  /** `task` for a task without a loop, `task#i` for loop instance `i`. */
  label(task: string, instance: number): string {
    return instanceLabel(task, this.spec(task), instance);
  }

  /** Adds `†input.<key>` (from a signal); `date` is an ISO timestamp from the workflow clock. */
  addInput(key: string, value: unknown, date: string): void {
    this.#context.addInput(key, value, date);
  }

  /**
   * Cancels a task that has not finished: it reads `cancelled`, its instances still to start do
   * not, and its dependents are skipped. A finished task stays as it is.
   */
  cancel(task: string, reason: string | undefined, now: number): { cancelled: boolean; status: TaskStatus } {
    return this.#tasks.cancel(task, reason, now);
  }

  /** Why the task was cancelled, or `undefined` while it is not. */
  cancelReason(task: string): string | undefined {
    return this.#tasks.cancelReason(task);
  }

  /**
   * Throws a typed error (code `INVALID_REQUEST`) naming why `request` cannot answer a gate: an
   * unknown task, one without `approval:`, one already finished or already answered.
   */
  checkApproval(request: ApproveTaskRequest): void {
    const entry = this.#tasks.get(request.task);
    if (this.spec(request.task).approval === undefined)
      throw new WharfOrchestratorError('INVALID_REQUEST', `task ${request.task} has no approval gate`);
    if (isFinished(entry.status))
      throw new WharfOrchestratorError('INVALID_REQUEST', `task ${request.task} already ${entry.status}`);
    if (entry.approval?.decision !== undefined)
      throw new WharfOrchestratorError(
        'INVALID_REQUEST',
        `task ${request.task} was already ${entry.approval.decision}`,
      );
  }

  /**
   * Answers a task's gate (see {@link checkApproval}): approved, it runs at the next step;
   * rejected, it is skipped or failed at once (its `on_reject`) with the answer as its reason.
   */
  answerApproval(request: ApproveTaskRequest, now: number): ApproveTaskResult {
    this.checkApproval(request);
    const entry = this.#tasks.get(request.task);
    const answered = answerApproval(entry.approval, request, now);
    if ('refused' in answered) throw new WharfOrchestratorError('INVALID_REQUEST', answered.refused);
    entry.approval = answered;
    this.#decideGate(request.task, now);
    return {
      task: request.task,
      decision: answered.decision ?? (request.approve ? 'approved' : 'rejected'),
      status: entry.status,
    };
  }

  /** Decides every open gate whose timeout passed by `now` (its `on_timeout`). */
  expireApprovals(now: number): void {
    for (const task of this.taskNames) {
      const entry = this.#tasks.get(task);
      if (entry.approval?.deadline !== undefined && entry.approval.decision === undefined)
        this.#decideGate(task, now);
    }
  }

  /** The gates waiting for an answer, in task order. */
  pendingApprovals(): PendingApproval[] {
    return pendingApprovals({ tasks: this.#taskProgress() });
  }

  /** The earliest deadline of a gate waiting for an answer, if any has one. */
  nextApprovalDeadline(): number | undefined {
    const deadlines = this.pendingApprovals().flatMap((gate) =>
      gate.deadline === undefined ? [] : [gate.deadline],
    );
    return deadlines.length === 0 ? undefined : Math.min(...deadlines);
  }

  /** Applies a gate's verdict at `now`: a rejection ends the task (skipped or failed) unless it finished. */
  #decideGate(task: string, now: number): void {
    const gate = this.spec(task).approval;
    const entry = this.#tasks.get(task);
    if (gate === undefined || entry.approval === undefined) return;
    const { verdict, state } = approvalVerdict(gate, entry.approval, now);
    entry.approval = state;
    if (!verdict.decided || verdict.approved || isFinished(entry.status)) return;
    entry.status = gate.on_reject === 'fail' ? 'failed' : 'skipped';
    entry.reason = verdict.reason;
    entry.waitingFor = [];
    entry.endedAt = now;
  }

  /** True once every task has finished (done, failed, skipped or cancelled). */
  allFinished(): boolean {
    return this.#tasks.allFinished();
  }

  /** Fails every task still waiting for inputs: nobody will write them. */
  failUnresolved(now: number): void {
    this.#tasks.failUnresolved(now);
  }

  /**
   * The next superstep: the instances a previous run left unstarted when there are any, else
   * every ready task (skipped and waiting tasks are marked on the way, started tasks consume
   * their join barrier). Counts the step when something runs.
   */
  nextStep(now: number): PlannedStep {
    const resume = this.#resume;
    this.#resume = [];
    const planned = resume.length > 0 ? this.#resumeStep(resume) : this.#planStep(now);
    if (planned.instances.length > 0) this.#step += 1;
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
   * Folds one superstep's outcomes in the order of `instances` (task order), never completion
   * order: each writes its `results:<task>` record, its compact, its context output and its
   * pool entry; a task whose last instance folded ends, and releases the join barriers of its
   * dependents (a failure only those that read its `||` failure branch).
   */
  fold(instances: readonly ScheduledInstance[], outcomes: readonly InstanceOutcome[], now: number): void {
    if (outcomes.length !== instances.length)
      throw new WharfOrchestratorError(
        'INVALID_REQUEST',
        `fold got ${outcomes.length} outcomes for ${instances.length} instances`,
      );
    const date = new Date(now).toISOString();
    const updates: ChannelUpdate[] = [];
    // Per task: instances and out ids this step adds to what its results channel holds.
    const folded = new Map<string, { count: number; outIds: string[] }>();
    instances.forEach((item, index) => {
      const outcome = outcomes[index] as InstanceOutcome;
      const spec = this.spec(item.task);
      const looped = isLooped(spec);
      const entry = this.#tasks.get(item.task);
      const label = this.label(item.task, item.instance);
      const writes: [string, unknown][] = [];
      let record: InstanceResult;
      if ('cancelled' in outcome) {
        record = { instance: item.instance, status: 'cancelled', outIds: [], bytes: 0 };
      } else {
        record = {
          instance: item.instance,
          status: outcome.status,
          outIds: outcome.outputs.map((ref) => ref.outId),
          bytes: outcome.bytes,
          ...(outcome.exitCode === undefined ? {} : { exitCode: outcome.exitCode }),
          ...(outcome.usage === undefined ? {} : { usage: outcome.usage }),
        };
        this.#compacts[label] = outcome.compact;
        if (outcome.status === 'failed' && entry.status !== 'cancelled') {
          entry.status = 'failed';
          entry.reason = failureReason(outcome);
        }
        this.#context.recordOutput({
          task: item.task,
          instance: looped ? item.instance : undefined,
          output: spec.output,
          result: outcome,
          date,
          skipKind: CHANNELS_KIND,
        });
        const targets = this.#channelTargets.get(item.task);
        const names = outcome.status === 'ok' ? targets?.success : targets?.failure;
        if (names !== undefined && names.length > 0) {
          const value = {
            ...taskOutputValue(outcome),
            ...(outcome.status === 'ok' ? {} : { message: outcome.stderrTail ?? 'task failed' }),
          };
          for (const name of names) {
            const channel = this.definition.channels[name];
            if (channel === undefined) continue; // the definition check rejects this
            writes.push([channelNames.user(name), channelWrite(channel, { task: item.task, label, value })]);
          }
        }
        writes.push([channelNames.bytes, outcome.bytes]);
        const main = record.outIds[0];
        if (main !== undefined)
          this.#pool.add({ taskId: label, task: item.task, outId: main, agent: spec.agent }, now);
      }
      writes.push([channelNames.results(item.task), record]);
      const step = folded.get(item.task) ?? { count: 0, outIds: [] };
      step.count += 1;
      step.outIds.push(...record.outIds);
      folded.set(item.task, step);
      updates.push(ChannelUpdate.fromList(writes, { label }));
    });
    // Instances folded before this step, plus this step's: a task whose count reaches its total ended.
    const finished = [...folded].filter(
      ([task, step]) => this.#results(task).length + step.count === this.#total(task),
    );
    for (const [task, step] of finished) {
      const entry = this.#tasks.get(task);
      if (entry.status === 'running') entry.status = 'done';
      entry.endedAt = now;
      const released =
        entry.status === 'done'
          ? this.taskNames.filter((other) => this.spec(other).depends_on.includes(task))
          : entry.status === 'failed'
            ? failureReaders(this.definition, task)
            : [];
      const mainOutId = this.#results(task).find((record) => record.outIds.length > 0)?.outIds[0];
      const arrivals: [string, unknown][] = released.map((other) => [
        channelNames.join(other),
        { [task]: mainOutId ?? step.outIds[0] ?? null },
      ]);
      if (arrivals.length > 0) updates.push(ChannelUpdate.fromList(arrivals, { label: `${task} done` }));
    }
    this.#state.foldSuperstep(this.#step, updates);
    this.#pool.cleanup(this.definition, now);
  }

  /**
   * The state to carry over continue-as-new; `resume` names the tasks whose loop instances this
   * run left unstarted.
   */
  carry(resume: readonly string[] = []): CarriedState {
    return {
      step: this.#step,
      channels: this.#state.snapshot(),
      context: this.#context.messages(),
      progress: this.#taskProgress(),
      compacts: this.#compacts,
      generation: this.generation + 1,
      contextPool: this.#pool.pool,
      ...(resume.length === 0 ? {} : { resume: [...resume] }),
    };
  }

  /** What the `progress` query reports. */
  progress(): SwarmProgress {
    return {
      swarm: this.definition.name,
      status: this.status,
      step: this.#step,
      tasks: this.#taskProgress(),
    };
  }

  /**
   * The swarm's result once every task finished: failed when a task failed (a skipped one does
   * not count) or the supervisor could not answer.
   */
  result(ending: {
    supervisor?: SuperviseResult | undefined;
    context?: SwarmContextMetrics | undefined;
  }): SwarmResult {
    const failedCount = this.failedCount();
    const failed = failedCount > 0 || ending.supervisor?.error !== undefined;
    return {
      swarm: this.definition.name,
      status: failed ? 'failed' : 'completed',
      outputs: this.outputs(),
      tasks: this.#taskProgress(),
      ...(ending.supervisor === undefined ? {} : { supervisor: ending.supervisor }),
      metrics: {
        totalBytes: this.totalBytes(),
        taskCount: this.taskNames.length,
        failedCount,
        skippedCount: this.skippedCount(),
        continuedAsNew: this.generation,
        ...(ending.context === undefined ? {} : { context: ending.context }),
        ...usageField(swarmUsage(this.#taskProgress(), ending.supervisor)),
      },
    };
  }

  /** Out ids per task, loop instances in order. */
  outputs(): Record<string, string[]> {
    const outputs: Record<string, string[]> = {};
    for (const task of this.taskNames) outputs[task] = this.outIds(task);
    return outputs;
  }

  /** Tasks that did not finish well; a skipped task (an untaken branch) is not a failure. */
  failedCount(): number {
    return this.taskNames.filter((task) => {
      const status = this.#tasks.get(task).status;
      return status !== 'done' && status !== 'skipped';
    }).length;
  }

  skippedCount(): number {
    return this.#tasks.count('skipped');
  }

  /** Bytes all subagents produced. */
  totalBytes(): number {
    return (this.#state.get(channelNames.bytes) as number | undefined) ?? 0;
  }

  /** One compact payload per finished instance, in task order then instance order. */
  orderedCompacts(): string[] {
    const out: string[] = [];
    for (const task of this.taskNames) {
      const total = this.#total(task);
      for (let instance = 0; instance < total; instance++) {
        const compact = this.#compacts[this.label(task, instance)];
        if (compact !== undefined) out.push(compact);
      }
    }
    return out;
  }

  #results(task: string): readonly InstanceResult[] {
    return (this.#state.get(channelNames.results(task)) as readonly InstanceResult[] | undefined) ?? [];
  }

  /** The task's out ids, loop instances in order, from its results channel. */
  outIds(task: string): string[] {
    return this.#results(task).flatMap((record) => record.outIds);
  }

  #taskProgress(): TaskProgress[] {
    return this.taskNames.map((task) => {
      const entry = this.#tasks.get(task);
      const results = this.#results(task);
      return {
        task,
        status: entry.status,
        instances: { done: results.length, total: this.#total(task) },
        bytesCaptured: results.reduce((sum, record) => sum + record.bytes, 0),
        ...usageOf(results),
        outIds: results.flatMap((record) => record.outIds),
        waitingFor: [...entry.waitingFor],
        ...(entry.reason === undefined ? {} : { reason: entry.reason }),
        ...(entry.startedAt === undefined ? {} : { startedAt: entry.startedAt }),
        ...(entry.endedAt === undefined ? {} : { endedAt: entry.endedAt }),
        ...(entry.approval === undefined ? {} : { approval: { ...entry.approval } }),
      };
    });
  }

  /** A map loop's items as its list resolves now (undefined when it does not, or is no list). */
  #mapItems(task: string): unknown[] | undefined {
    const loop = this.spec(task).loop;
    if (loop?.type !== 'map') return undefined;
    const resolution = this.#context.evaluate(task, loop.over);
    if (!resolution.ready) return undefined;
    const expansion = expandMapLoop(resolution.values.value);
    return expansion.ok ? expansion.items : undefined;
  }

  /** The task's instance count: a repeat loop's count, a map loop's items once known (0 before). */
  #total(task: string): number {
    const loop = this.spec(task).loop;
    if (loop?.type === 'map') return this.#tasks.get(task).total ?? 0;
    return loop?.count ?? 1;
  }

  /** Decides what runs in the next superstep; marks skipped and waiting tasks on the way. */
  #planStep(now: number): PlannedStep {
    this.expireApprovals(now);
    const instances: ScheduledInstance[] = [];
    const decisions = planTasks({
      definition: this.definition,
      status: (task) => this.#tasks.get(task).status,
      joined: (task) => this.#state.isReady(channelNames.join(task)),
      resolve: (task, instance) =>
        this.#context.resolveInputs(task, this.spec(task).inputs, instance, this.#kinds),
      evaluate: (task, expression) => this.#context.evaluate(task, expression),
      approved: (task) =>
        this.spec(task).approval === undefined || this.#tasks.get(task).approval?.decision === 'approved',
    });
    const emptied: string[] = [];
    for (const decision of decisions) {
      const entry = this.#tasks.get(decision.task);
      if (decision.action === 'skip') {
        entry.status = 'skipped';
        entry.reason = decision.reason;
        entry.waitingFor = [];
        entry.endedAt = now;
        continue;
      }
      if (decision.action === 'wait') {
        entry.status = 'waiting';
        entry.waitingFor = decision.waitingFor;
        continue;
      }
      if (decision.action === 'approval') {
        entry.status = 'waiting';
        entry.waitingFor = ['approval'];
        entry.approval = openApproval(this.spec(decision.task).approval ?? defaultGate, entry.approval, now);
        continue;
      }
      if (decision.action === 'fail') {
        entry.status = 'failed';
        entry.reason = decision.reason;
        entry.waitingFor = [];
        entry.endedAt = now;
        continue;
      }
      if (this.spec(decision.task).depends_on.length > 0)
        this.#state.consume(channelNames.join(decision.task));
      entry.status = 'running';
      entry.waitingFor = [];
      entry.startedAt = now;
      if (this.spec(decision.task).loop?.type === 'map') {
        entry.total = decision.instances.length;
        if (entry.total === 0) emptied.push(decision.task);
      }
      for (const { instance, inputs } of decision.instances)
        instances.push({ task: decision.task, instance, inputs });
    }
    // A map loop over an empty list is done at once: its dependents are released now.
    if (emptied.length > 0) {
      const updates: ChannelUpdate[] = [];
      for (const task of emptied) {
        const entry = this.#tasks.get(task);
        entry.status = 'done';
        entry.endedAt = now;
        const arrivals: [string, unknown][] = this.taskNames
          .filter((other) => this.spec(other).depends_on.includes(task))
          .map((other) => [channelNames.join(other), { [task]: null }]);
        if (arrivals.length > 0) updates.push(ChannelUpdate.fromList(arrivals, { label: `${task} done` }));
      }
      this.#state.foldSuperstep(this.#step, updates);
      // Their dependents may run in this very step.
      instances.push(...this.#planStep(now).instances);
    }
    return { instances, lostInputs: [] };
  }

  /**
   * The instances a previous run left unstarted, of tasks cut by a history bound. A running
   * task's instances start in order, so they are those from the number already folded on.
   */
  #resumeStep(tasks: readonly string[]): PlannedStep {
    const planned: PlannedStep = { instances: [], lostInputs: [] };
    for (const task of tasks) {
      const spec = this.spec(task);
      const total = this.#total(task);
      const items = spec.loop?.type === 'map' ? this.#mapItems(task) : undefined;
      for (let instance = this.#results(task).length; instance < total; instance++) {
        const resolution = this.#context.resolveInputs(
          task,
          spec.inputs,
          isLooped(spec) ? instance : undefined,
          this.#kinds,
        );
        // The context only grows, so inputs (and a map loop's list) that resolved when the task started still do.
        if (!resolution.ready || (items !== undefined && instance >= items.length))
          planned.lostInputs.push({ task, instance });
        const inputs = resolution.ready ? resolution.values : {};
        planned.instances.push({
          task,
          instance,
          inputs:
            items === undefined ? inputs : { ...inputs, item: items[instance] ?? null, index: instance },
        });
      }
    }
    return planned;
  }
}

/** What a gate is when the definition lost it (never, for a validated definition). */
const defaultGate = { on_timeout: 'reject', on_reject: 'skip' } as const;

function unknownTask(task: string, tasks: readonly string[]): WharfOrchestratorError {
  return new WharfOrchestratorError('INVALID_REQUEST', `unknown task "${task}"; tasks: ${tasks.join(', ')}`);
}

/** The model usage of a task's instances, summed, as an optional field. */
function usageOf(results: readonly InstanceResult[]): { usage?: AgentUsage } {
  return usageField(addUsage(...results.map((record) => record.usage)));
}

function usageField(usage: AgentUsage | undefined): { usage?: AgentUsage } {
  return usage === undefined ? {} : { usage };
}
