// Pure: how one superstep's outcomes change a swarm run, read from its state as task
// transitions and writes. Runs inside the workflow sandbox; applyWrites is the one place a
// fold changes the state.
import { ChannelUpdate } from '@wharf/channels';
import { instanceLabel, isLooped } from '../dsl/task-instances.js';
import { WharfOrchestratorError } from '../orchestrator-error.js';
import type { ContextPoolEntry, SubagentResult, TaskState } from '../shared/types.js';
import { dependentsOf, type ScheduledInstance } from './plan-step.js';
import { failureReaders } from './plan-tasks.js';
import { failureReason } from './subagent-failure.js';
import { channelNames, type InstanceResult } from './swarm-channels.js';
import { type RecordedOutput, taskOutputValue } from './swarm-context.js';
import { instanceResults, instanceTotal, type SwarmState, taskSpec, unfinishedTasks } from './swarm-state.js';
import { nextTaskState, type TaskTransition } from './task-state.js';
import { CHANNELS_KIND, channelWrite } from './user-channels.js';

/** How one scheduled instance ended: the subagent's result, or cancelled before or while it ran. */
export type InstanceOutcome = SubagentResult | { cancelled: true; reason: string };

/** What {@link foldStep} writes: nothing here has happened until {@link applyWrites}. */
export interface StepWrites {
  /** Task transitions in order: failed instances, then the tasks whose last instance folded. */
  transitions: TaskTransition[];
  /**
   * The superstep's channel updates in task order: one per instance (its `results:<task>`
   * record, its user channel writes), then the join barriers each ended task releases.
   */
  updates: ChannelUpdate[];
  /** Outputs written to the context at their tasks' output paths, in order. */
  outputs: RecordedOutput[];
  /** Compact payloads by instance label. */
  compacts: [label: string, compact: string][];
  /** Main outputs added to the context pool, in order. */
  pooled: (Pick<ContextPoolEntry, 'taskId' | 'task' | 'outId'> & { agent?: string | undefined })[];
}

/**
 * Folds one superstep's outcomes, in the order of `instances` (task order), never completion
 * order, changing nothing: each instance writes its `results:<task>` record, its compact, its
 * output value (to the context, or to the user's channels it names) and its pool entry; a
 * task whose last instance folded ends, and releases the join barriers of its dependents (a
 * failure only those that read its `||` failure branch).
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
  const writes: StepWrites = { transitions: [], updates: [], outputs: [], compacts: [], pooled: [] };
  const date = new Date(now).toISOString();
  // Each task's state as this fold leaves it, and what this step adds to its results.
  const tasks = new Map<string, TaskState>();
  const folded = new Map<string, InstanceResult[]>();
  const transition = (transition: TaskTransition): void => {
    const before = tasks.get(transition.task) ?? state.tasks.get(transition.task);
    tasks.set(transition.task, nextTaskState(transition.task, before, transition.event, now));
    writes.transitions.push(transition);
  };
  instances.forEach((item, index) => {
    const outcome = outcomes[index] as InstanceOutcome;
    const spec = taskSpec(state, item.task);
    const label = instanceLabel(item.task, spec, item.instance);
    const channelWrites: [string, unknown][] = [];
    const record: InstanceResult =
      'cancelled' in outcome
        ? { instance: item.instance, status: 'cancelled', outIds: [], bytes: 0 }
        : {
            instance: item.instance,
            status: outcome.status,
            outIds: outcome.outputs.map((ref) => ref.outId),
            bytes: outcome.bytes,
            ...(outcome.exitCode === undefined ? {} : { exitCode: outcome.exitCode }),
            ...(outcome.usage === undefined ? {} : { usage: outcome.usage }),
            ...(outcome.reused === true ? { reused: true as const } : {}),
          };
    if (!('cancelled' in outcome)) {
      writes.compacts.push([label, outcome.compact]);
      if (outcome.status === 'failed')
        transition({ task: item.task, event: { type: 'instance-failed', reason: failureReason(outcome) } });
      writes.outputs.push({
        task: item.task,
        instance: isLooped(spec) ? item.instance : undefined,
        output: spec.output,
        result: outcome,
        date,
        skipKind: CHANNELS_KIND,
      });
      channelWrites.push(...userChannelWrites(state, item.task, label, outcome));
      const main = record.outIds[0];
      if (main !== undefined)
        writes.pooled.push({ taskId: label, task: item.task, outId: main, agent: spec.agent });
    }
    channelWrites.push([channelNames.results(item.task), record]);
    folded.set(item.task, [...(folded.get(item.task) ?? []), record]);
    writes.updates.push(ChannelUpdate.fromList(channelWrites, { label }));
  });
  // Instances folded before this step, plus this step's: a task whose count reaches its total ended.
  for (const [task, records] of folded) {
    const earlier = instanceResults(state, task);
    if (earlier.length + records.length !== instanceTotal(state, task)) continue;
    transition({ task, event: { type: 'end' } });
    const status = tasks.get(task)?.status;
    const released =
      status === 'done'
        ? dependentsOf(state, task)
        : status === 'failed'
          ? failureReaders(state.definition, task)
          : [];
    const main = [...earlier, ...records].find((record) => record.outIds.length > 0)?.outIds[0] ?? null;
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
  for (const entry of writes.pooled) state.pool.add(entry, now);
  for (const { task, event } of writes.transitions) state.tasks.apply(task, event, now);
  state.channels.foldSuperstep(state.step, writes.updates);
  state.pool.cleanup(state.definition, now, unfinishedTasks(state));
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
