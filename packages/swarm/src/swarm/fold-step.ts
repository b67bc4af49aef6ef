// Pure: how one superstep's outcomes change a swarm run, read from its state as task
// transitions and writes. Runs inside the workflow sandbox; applyWrites is the one place a
// fold changes the state.
import { ChannelUpdate } from '@wharf/channels';
import type { SubagentResult } from '../contracts/agent-contracts.js';
import type { InstanceRecord } from '../contracts/data-plane-contracts.js';
import type { TaskState } from '../contracts/progress-contracts.js';
import { instanceLabel, isLooped } from '../dsl/task-instances.js';
import { WharfOrchestratorError } from '../orchestrator-error.js';
import { addUsage } from '../report/agent-usage.js';
import { addOutputs, cleanUpPool, keepNewest, POOL_PER_LOOP, type PooledOutput } from './context-pool.js';
import { endToolCalls } from './pending-tool-calls.js';
import { dependentsOf, type ScheduledInstance } from './plan-step.js';
import { failureReaders } from './plan-tasks.js';
import { failureReason } from './subagent-failure.js';
import { channelNames } from './swarm-channels.js';
import { type RecordedOutput, taskOutputValue } from './swarm-context.js';
import { instanceTotal, type SwarmState, taskResults, taskSpec, unfinishedTasks } from './swarm-state.js';
import type { TaskResultsStep } from './task-results.js';
import { FAILURES_KEPT } from './task-results.js';
import { nextTaskState, type TaskTransition } from './task-state.js';
import { CHANNELS_KIND, channelWrite } from './user-channels.js';

/** Compact payloads a loop keeps for the supervisor: of its first instances, and of its first failures. */
export const COMPACTS_PER_LOOP = 3;
/**
 * How one scheduled instance ended: the subagent's result, or cancelled before or while it ran.
 * `endsTask`: the cancellation ends its task as `cancelled` (a run's cancellation stopped it in
 * flight), never as `done`; without it (a run that began before that was so) the task ends as
 * its other instances say.
 */
export type InstanceOutcome = SubagentResult | { cancelled: true; reason: string; endsTask?: true };

/** What {@link foldStep} writes: nothing here has happened until {@link applyWrites}. */
export interface StepWrites {
  /** Task transitions in order: failed instances, then the tasks whose last instance folded. */
  transitions: TaskTransition[];
  /**
   * The superstep's channel updates in task order: one per instance that writes the user's
   * channels, one per task with what its instances add to its `results:<task>`, then the join
   * barriers each ended task releases.
   */
  updates: ChannelUpdate[];
  /** Outputs of tasks without a loop, written to the context at their output paths, in order (a loop's are written as one stored list when it ends). */
  outputs: RecordedOutput[];
  /** Compact payloads by instance label (a loop keeps only a few, see {@link COMPACTS_PER_LOOP}). */
  compacts: [label: string, compact: string][];
  /** Main outputs added to the context pool, in order. */
  pooled: PooledOutput[];
  /** Loop tasks' instance records, in instance order: they go to the store, in chunks of the task's manifest. */
  records: [task: string, record: InstanceRecord][];
}

/**
 * Folds one superstep's outcomes, in the order of `instances` (task order), never completion
 * order, changing nothing: each task's instances add one summary to its `results:<task>`; each
 * instance writes its compact (a loop: only a few), its output value (a task without a loop to
 * the context; a loop's instances to their records, stored as the task's list when it ends; to
 * the user's channels it names either way) and its pool entry; a task whose last instance
 * folded ends, and releases the join barriers of its dependents (a failure only those that
 * read its `||` failure branch).
 *
 * @example
 * ```ts
 * applyWrites(state, foldStep(state, instances, outcomes, now), now);
 * ```
 */
export function foldStep(
  state: SwarmState,
  instances: readonly ScheduledInstance[],
  outcomes: readonly InstanceOutcome[],
  now: number,
): StepWrites {
  if (outcomes.length !== instances.length)
    throw new WharfOrchestratorError(
      'INVALID_REQUEST',
      `fold got ${outcomes.length} outcomes for ${instances.length} instances`,
    );
  const writes: StepWrites = {
    transitions: [],
    updates: [],
    outputs: [],
    compacts: [],
    pooled: [],
    records: [],
  };
  const date = new Date(now).toISOString();
  // Each task's state as this fold leaves it, and what this step adds to its results.
  const tasks = new Map<string, TaskState>();
  const steps = new Map<string, TaskResultsStep>();
  const transition = (transition: TaskTransition): void => {
    const before = tasks.get(transition.task) ?? state.tasks.get(transition.task);
    tasks.set(transition.task, nextTaskState(transition.task, before, transition.event, now));
    writes.transitions.push(transition);
  };
  instances.forEach((item, index) => {
    const outcome = outcomes[index] as InstanceOutcome;
    const spec = taskSpec(state, item.task);
    const looped = isLooped(spec);
    const label = instanceLabel(item.task, spec, item.instance);
    const earlier = taskResults(state, item.task);
    let step = steps.get(item.task);
    if (step === undefined) {
      step = {
        type: 'step',
        done: 0,
        ok: 0,
        failed: 0,
        cancelled: 0,
        bytes: 0,
        outIds: [],
        failures: [],
        reused: 0,
        inlineAll: !looped,
        ...(looped ? { pooled: [] } : {}),
      };
      steps.set(item.task, step);
    }
    step.done += 1;
    const record: InstanceRecord =
      'cancelled' in outcome
        ? { instance: item.instance, status: 'cancelled', outIds: [], bytes: 0 }
        : {
            instance: item.instance,
            status: outcome.status,
            outIds: outcome.outputs.map((ref) => ref.outId),
            bytes: outcome.bytes,
            ...(outcome.exitCode === undefined ? {} : { exitCode: outcome.exitCode }),
          };
    step[record.status] += 1;
    if (!('cancelled' in outcome) && outcome.reused === true) step.reused += 1;
    step.bytes += record.bytes;
    step.outIds.push(...record.outIds);
    const channelWrites: [string, unknown][] = [];
    // A task stopped in flight is cancelled, not done (a task cancelled already stays as it is).
    if ('cancelled' in outcome && outcome.endsTask === true)
      transition({ task: item.task, event: { type: 'cancel', reason: outcome.reason } });
    if (!('cancelled' in outcome)) {
      const usage = addUsage(step.usage, outcome.usage);
      if (usage !== undefined) step.usage = usage;
      if (!looped && outcome.exitCode !== undefined) step.exitCode = outcome.exitCode;
      const failedBefore = earlier.failed + step.failed - (outcome.status === 'failed' ? 1 : 0);
      const keep =
        !looped ||
        item.instance < COMPACTS_PER_LOOP ||
        (outcome.status === 'failed' && failedBefore < COMPACTS_PER_LOOP);
      // An instance past the kept ones returns none (`resultOmissions`).
      if (keep && outcome.compact !== undefined) writes.compacts.push([label, outcome.compact]);
      if (outcome.status === 'failed') {
        const reason = failureReason(outcome);
        transition({ task: item.task, event: { type: 'instance-failed', reason } });
        step.failures.push({ instance: item.instance, reason });
      }
      if (!looped) {
        writes.outputs.push({
          task: item.task,
          instance: undefined,
          output: spec.output,
          result: outcome,
          date,
          skipKind: CHANNELS_KIND,
        });
      } else if (spec.output !== undefined) {
        if (outcome.preview !== undefined) record.preview = outcome.preview;
        if (outcome.status === 'failed') record.message = outcome.stderrTail ?? 'task failed';
      }
      channelWrites.push(...userChannelWrites(state, item.task, label, outcome));
      const main = record.outIds[0];
      if (main !== undefined) {
        writes.pooled.push({
          taskId: label,
          task: item.task,
          outId: main,
          agent: spec.agent,
          // A reused result enters the pool when it did in the run, as if it had run.
          ...(outcome.pooledAt === undefined ? {} : { completedAt: outcome.pooledAt }),
        });
        // A loop's results remember its newest pooled outputs: what a re-run reusing it whole pools.
        if (looped) step.pooled?.push({ taskId: label, outId: main, pooledAt: outcome.pooledAt ?? now });
      }
    }
    if (looped) writes.records.push([item.task, record]);
    if (channelWrites.length > 0) writes.updates.push(ChannelUpdate.fromList(channelWrites, { label }));
  });
  for (const [task, step] of steps) {
    step.failures = step.failures.slice(0, FAILURES_KEPT);
    if (step.pooled !== undefined) {
      step.pooledCount = step.pooled.length;
      step.pooled = step.pooled.slice(-POOL_PER_LOOP);
    }
    writes.updates.push(
      ChannelUpdate.fromList([[channelNames.results(task), step]], { label: `${task} results` }),
    );
  }
  // Instances folded before this step, plus this step's: a task whose count reaches its total ended.
  for (const [task, step] of steps) {
    const earlier = taskResults(state, task);
    if (earlier.done + step.done !== instanceTotal(state, task)) continue;
    transition({ task, event: { type: 'end' } });
    const status = tasks.get(task)?.status;
    const released =
      status === 'done'
        ? dependentsOf(state, task)
        : status === 'failed'
          ? failureReaders(state.definition, task)
          : [];
    const main = earlier.main ?? step.outIds[0] ?? null;
    const arrivals: [string, unknown][] = released.map((other) => [
      channelNames.join(other),
      { [task]: main },
    ]);
    if (arrivals.length > 0) writes.updates.push(ChannelUpdate.fromList(arrivals, { label: `${task} done` }));
  }
  return writes;
}

/**
 * Applies a fold at `now` (the superstep `state.step`): compacts, context outputs, pool
 * entries, task transitions (through the task board), the channel updates as one superstep,
 * then the swarm's `limits.cleanup_strategy` on the pool (never dropping the output of a task
 * that an unfinished task depends on directly).
 *
 * @example
 * ```ts
 * applyWrites(state, foldStep(state, instances, outcomes, now), now);
 * ```
 */
export function applyWrites(state: SwarmState, writes: StepWrites, now: number): void {
  for (const [label, compact] of writes.compacts) state.compacts[label] = compact;
  for (const output of writes.outputs) state.context.recordOutput(output);
  let pool = addOutputs(state.pool, writes.pooled, now);
  const loops = new Set(
    writes.pooled.map((entry) => entry.task).filter((task) => isLooped(taskSpec(state, task))),
  );
  for (const task of loops) pool = keepNewest(pool, task, POOL_PER_LOOP);
  for (const [task, record] of writes.records) {
    const pending = state.pending.get(task);
    if (pending === undefined) state.pending.set(task, [record]);
    else pending.push(record);
  }
  for (const { task, event } of writes.transitions) state.tasks.apply(task, event, now);
  state.channels.foldSuperstep(state.step, writes.updates);
  state.pool = cleanUpPool(pool, state.definition, now, unfinishedTasks(state)).pool;
}

/**
 * Folds one superstep's outcomes into the state in the order of `instances` ({@link foldStep},
 * applied). A finished agent instance holds no tool call any more: its calls leave the pending
 * list.
 *
 * @example
 * ```ts
 * const { instances } = nextStep(state, now);
 * foldOutcomes(state, instances, await Promise.all(instances.map(run)), now);
 * ```
 */
export function foldOutcomes(
  state: SwarmState,
  instances: readonly ScheduledInstance[],
  outcomes: readonly InstanceOutcome[],
  now: number,
): void {
  applyWrites(state, foldStep(state, instances, outcomes, now), now);
  for (const item of instances)
    state.pendingCalls = endToolCalls(
      state.pendingCalls,
      instanceLabel(item.task, taskSpec(state, item.task), item.instance),
    );
}

/** The user channels a finished instance writes (`†channels.<name>` on the side its status took). */
function userChannelWrites(
  state: SwarmState,
  task: string,
  label: string,
  outcome: SubagentResult,
): [string, unknown][] {
  const targets = state.channelTargets.get(task);
  const names = outcome.status === 'ok' ? targets?.success : targets?.failure;
  if (names === undefined || names.length === 0) return [];
  const value = {
    ...taskOutputValue(outcome),
    ...(outcome.status === 'ok' ? {} : { message: outcome.stderrTail ?? 'task failed' }),
  };
  const writes: [string, unknown][] = [];
  for (const name of names) {
    const channel = state.definition.channels[name];
    if (channel === undefined) continue; // the definition check rejects this
    writes.push([channelNames.user(name), channelWrite(channel, { task, label, value })]);
  }
  return writes;
}
