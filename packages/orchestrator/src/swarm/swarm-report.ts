// Pure: what a swarm run reports (progress, outputs, result), read from its state. Runs inside
// the workflow sandbox.
import { instanceLabel } from '../dsl/task-instances.js';
import { addUsage, swarmUsage } from '../shared/agent-usage.js';
import { isFailure, isFinished } from '../shared/task-status.js';
import type {
  AgentUsage,
  SuperviseResult,
  SwarmContextMetrics,
  SwarmProgress,
  SwarmResult,
  TaskProgress,
} from '../shared/types.js';
import { instanceResults, instanceTotal, type SwarmState, taskOutIds, taskSpec } from './swarm-state.js';

/**
 * Every task's progress in definition order: its own state from the task board, what it
 * produced from its results channel.
 *
 * @example
 * ```ts
 * taskProgress(state)[0]; // { task: 'fetch', status: 'done', instances: { done: 1, total: 1 }, outIds: ['out_…'], … }
 * ```
 */
export function taskProgress(state: SwarmState): TaskProgress[] {
  return state.taskNames.map((task) => {
    const entry = state.tasks.get(task);
    const results = instanceResults(state, task);
    const reused = results.filter((record) => record.reused === true).length;
    return {
      task,
      status: entry.status,
      instances: { done: results.length, total: instanceTotal(state, task) },
      bytesCaptured: results.reduce((sum, record) => sum + record.bytes, 0),
      ...usageField(addUsage(...results.map((record) => record.usage))),
      ...(reused === 0 ? {} : { reused }),
      outIds: results.flatMap((record) => record.outIds),
      waitingFor: [...entry.waitingFor],
      ...(entry.reason === undefined ? {} : { reason: entry.reason }),
      ...(entry.startedAt === undefined ? {} : { startedAt: entry.startedAt }),
      ...(entry.endedAt === undefined ? {} : { endedAt: entry.endedAt }),
      ...(entry.approval === undefined ? {} : { approval: { ...entry.approval } }),
    };
  });
}

/**
 * Out ids per task, loop instances in order.
 *
 * @example
 * ```ts
 * swarmOutputs(state); // { fetch: ['out_1'], fan: ['out_2', 'out_3'] }
 * ```
 */
export function swarmOutputs(state: SwarmState): Record<string, string[]> {
  const outputs: Record<string, string[]> = {};
  for (const task of state.taskNames) outputs[task] = taskOutIds(state, task);
  return outputs;
}

/**
 * Bytes all subagents produced, summed from the results channels.
 *
 * @example
 * ```ts
 * totalBytes(state); // 17
 * ```
 */
export function totalBytes(state: SwarmState): number {
  let total = 0;
  for (const task of state.taskNames)
    for (const record of instanceResults(state, task)) total += record.bytes;
  return total;
}

/**
 * One compact payload per finished instance, in task order then instance order: the
 * supervisor's input.
 *
 * @example
 * ```ts
 * orderedCompacts(state); // ['Worker job fetch succeeded. …', 'Worker job fan.0 succeeded. …']
 * ```
 */
export function orderedCompacts(state: SwarmState): string[] {
  const compacts: string[] = [];
  for (const task of state.taskNames) {
    for (const record of instanceResults(state, task)) {
      const compact = state.compacts[instanceLabel(task, taskSpec(state, task), record.instance)];
      if (compact !== undefined) compacts.push(compact);
    }
  }
  return compacts;
}

/**
 * The swarm's result once every task finished: failed when a task failed or was cancelled (a
 * skipped one does not count) or the supervisor could not answer.
 *
 * @example
 * ```ts
 * swarmResult(state, { supervisor, context }).metrics; // { totalBytes, taskCount, failedCount, … }
 * ```
 */
export function swarmResult(
  state: SwarmState,
  ending: { supervisor?: SuperviseResult | undefined; context?: SwarmContextMetrics | undefined },
): SwarmResult {
  const tasks = taskProgress(state);
  // A task that never finished (none should, once the run ends) did not finish well either.
  const failedCount = tasks.filter((task) => !isFinished(task.status) || isFailure(task.status)).length;
  const failed = failedCount > 0 || ending.supervisor?.error !== undefined;
  return {
    swarm: state.definition.name,
    status: failed ? 'failed' : 'completed',
    outputs: swarmOutputs(state),
    tasks,
    ...(ending.supervisor === undefined ? {} : { supervisor: ending.supervisor }),
    metrics: {
      totalBytes: totalBytes(state),
      taskCount: state.taskNames.length,
      failedCount,
      skippedCount: state.tasks.count('skipped'),
      continuedAsNew: state.generation,
      ...(ending.context === undefined ? {} : { context: ending.context }),
      ...usageField(swarmUsage(tasks, ending.supervisor)),
    },
  };
}

/**
 * What the `progress` query reports, with the swarm's own status.
 *
 * @example
 * ```ts
 * swarmProgress(state, 'running').step; // supersteps run so far
 * ```
 */
export function swarmProgress(state: SwarmState, status: SwarmProgress['status']): SwarmProgress {
  return {
    swarm: state.definition.name,
    status,
    step: state.step,
    tasks: taskProgress(state),
    ...(state.pendingCalls.length === 0
      ? {}
      : { pendingToolCalls: state.pendingCalls.map((call) => ({ ...call })) }),
  };
}

function usageField(usage: AgentUsage | undefined): { usage?: AgentUsage } {
  return usage === undefined ? {} : { usage };
}
