// Pure: what a swarm run reports (progress, outputs, result), read from its state. Runs inside
// the workflow sandbox.
import { type PendingApproval, pendingApprovals } from '../approvals/approval-gate.js';
import type { AgentUsage, SuperviseResult } from '../contracts/agent-contracts.js';
import type { PendingToolCall, SwarmProgress, TaskProgress } from '../contracts/progress-contracts.js';
import type { SwarmContextMetrics } from '../contracts/relevance-pool-contracts.js';
import type { SwarmResult } from '../contracts/swarm-contracts.js';
import { isFailure, isFinished } from '../contracts/task-status.js';
import { instanceLabel, isLooped } from '../dsl/task-instances.js';
import { swarmUsage } from '../report/agent-usage.js';
import { instanceTotal, type SwarmState, taskResults, taskSpec } from './swarm-state.js';

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
    const results = taskResults(state, task);
    return {
      task,
      status: entry.status,
      instances: { done: results.done, total: instanceTotal(state, task) },
      bytesCaptured: results.bytes,
      ...usageField(results.usage),
      ...(results.reused === undefined || results.reused === 0 ? {} : { reused: results.reused }),
      outIds: [...results.outIds],
      ...(results.outIds.length === results.outCount ? {} : { outCount: results.outCount }),
      ...(results.manifest === undefined ? {} : { manifest: results.manifest }),
      ...(results.pooled === undefined
        ? {}
        : {
            pooled: results.pooled.map((output) => ({ ...output })),
            pooledCount: results.pooledCount ?? results.pooled.length,
          }),
      ...(results.failed > 0 && isLooped(taskSpec(state, task))
        ? { failures: { count: results.failed, first: results.failures.map((failure) => ({ ...failure })) } }
        : {}),
      waitingFor: [...entry.waitingFor],
      ...(entry.reason === undefined ? {} : { reason: entry.reason }),
      ...(entry.startedAt === undefined ? {} : { startedAt: entry.startedAt }),
      ...(entry.endedAt === undefined ? {} : { endedAt: entry.endedAt }),
      ...(entry.approval === undefined ? {} : { approval: { ...entry.approval } }),
    };
  });
}

/**
 * Out ids per task, loop instances in order (a loop with more than 64: none, see {@link swarmManifests}).
 *
 * @example
 * ```ts
 * swarmOutputs(state); // { fetch: ['out_1'], fan: ['out_2', 'out_3'] }
 * ```
 */
export function swarmOutputs(state: SwarmState): Record<string, string[]> {
  const outputs: Record<string, string[]> = {};
  for (const task of state.taskNames) outputs[task] = [...taskResults(state, task).outIds];
  return outputs;
}

/**
 * Per loop task that stored its results, the manifest of its instance records.
 *
 * @example
 * ```ts
 * swarmManifests(state); // { fan: 'out_…' }
 * ```
 */
export function swarmManifests(state: SwarmState): Record<string, string> {
  const manifests: Record<string, string> = {};
  for (const task of state.taskNames) {
    const manifest = taskResults(state, task).manifest;
    if (manifest !== undefined) manifests[task] = manifest;
  }
  return manifests;
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
  for (const task of state.taskNames) total += taskResults(state, task).bytes;
  return total;
}

/**
 * The supervisor's input, in task order: each task's compact payload; for a loop, those of its
 * first instances and first failures (instance order), then one line counting them all and
 * naming the manifest that holds every instance's outputs.
 *
 * @example
 * ```ts
 * orderedCompacts(state); // ['Worker job fetch succeeded. …', 'Worker job fan.0 succeeded. …', 'fan: 5000 instances …']
 * ```
 */
export function orderedCompacts(state: SwarmState): string[] {
  const compacts: string[] = [];
  for (const task of state.taskNames) {
    const spec = taskSpec(state, task);
    if (!isLooped(spec)) {
      const compact = state.compacts[instanceLabel(task, spec, 0)];
      if (compact !== undefined) compacts.push(compact);
      continue;
    }
    const prefix = `${task}#`;
    const kept = Object.keys(state.compacts)
      .filter((label) => label.startsWith(prefix))
      .map((label) => Number(label.slice(prefix.length)))
      .sort((left, right) => left - right);
    for (const instance of kept) compacts.push(state.compacts[`${prefix}${instance}`] as string);
    const results = taskResults(state, task);
    if (results.done > kept.length) {
      const counts = [`${results.ok} ok`, `${results.failed} failed`, `${results.cancelled} cancelled`].join(
        ', ',
      );
      compacts.push(
        `${task}: ${results.done} instances (${counts}); ${kept.length} shown above` +
          (results.manifest === undefined ? '' : `; every instance's outputs: manifest ${results.manifest}`),
      );
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
  const manifests = swarmManifests(state);
  return {
    swarm: state.definition.name,
    status: failed ? 'failed' : 'completed',
    outputs: swarmOutputs(state),
    ...(Object.keys(manifests).length === 0 ? {} : { manifests }),
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
 * What the `progress` query reports: the swarm's own status ({@link swarmStatus}), its step,
 * its tasks and the tool calls held for a person.
 *
 * @example
 * ```ts
 * swarmProgress(state).step; // supersteps run so far
 * ```
 */
export function swarmProgress(state: SwarmState): SwarmProgress {
  const tasks = taskProgress(state);
  const pendingToolCalls = state.pendingCalls.map((call) => ({ ...call }));
  return {
    swarm: state.definition.name,
    status: statusOf(state, tasks, pendingToolCalls),
    step: state.step,
    tasks,
    ...(pendingToolCalls.length === 0 ? {} : { pendingToolCalls }),
  };
}

/**
 * {@link swarmProgress} with the instances of the superstep in flight that finished but are not
 * folded yet counted as done (`state.settled`): what the `progress` query answers, so that a map
 * of thousands shows its count grow while its one step runs. The memo keeps
 * {@link swarmProgress}, the folded state's.
 *
 * @example
 * ```ts
 * liveProgress(state).tasks[1].instances; // { done: 1200, total: 2000 } while fan's step runs
 * ```
 */
export function liveProgress(state: SwarmState): SwarmProgress {
  const progress = swarmProgress(state);
  if (state.settled.size === 0) return progress;
  return {
    ...progress,
    tasks: progress.tasks.map((task) => {
      const settled = state.settled.get(task.task) ?? 0;
      if (settled === 0) return task;
      const done = Math.min(task.instances.total, task.instances.done + settled);
      return { ...task, instances: { done, total: task.instances.total } };
    }),
  };
}

/**
 * The swarm's own status: its phase, reported `waiting` while it runs and a gate or a held tool
 * call waits for a person.
 *
 * @example
 * ```ts
 * swarmStatus(state); // 'waiting' while deploy's gate is open
 * ```
 */
export function swarmStatus(state: SwarmState): SwarmProgress['status'] {
  if (state.status !== 'running') return state.status;
  return statusOf(state, taskProgress(state), state.pendingCalls);
}

/**
 * The task gates waiting for an answer, in task order (the held tool calls are not among them).
 *
 * @example
 * ```ts
 * openGates(state); // [{ task: 'deploy', prompt: 'Ship it?', requestedAt: …, deadline: … }]
 * ```
 */
export function openGates(state: SwarmState): PendingApproval[] {
  return pendingApprovals({ tasks: taskProgress(state) });
}

/**
 * The earliest deadline of a task gate waiting for an answer, if any has one.
 *
 * @example
 * ```ts
 * nextGateDeadline(state); // epoch ms of the first gate's timeout
 * ```
 */
export function nextGateDeadline(state: SwarmState): number | undefined {
  const deadlines = openGates(state).flatMap((gate) => (gate.deadline === undefined ? [] : [gate.deadline]));
  return deadlines.length === 0 ? undefined : Math.min(...deadlines);
}

function statusOf(
  state: SwarmState,
  tasks: SwarmProgress['tasks'],
  pendingToolCalls: readonly PendingToolCall[],
): SwarmProgress['status'] {
  if (state.status !== 'running') return state.status;
  const waiting = pendingApprovals({ tasks, pendingToolCalls: [...pendingToolCalls] });
  return waiting.length > 0 ? 'waiting' : 'running';
}

function usageField(usage: AgentUsage | undefined): { usage?: AgentUsage } {
  return usage === undefined ? {} : { usage };
}
