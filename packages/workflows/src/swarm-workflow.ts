// The swarm workflow: a SwarmState driven by driveSwarm against the Temporal port, its handlers,
// and how it ends (continue-as-new, a result, or a failed swarm's failure). Planning, folding,
// the context pool and carried state are pure, in ../swarm/. Deterministic: imports only @temporalio/workflow
// and pure modules.
import {
  allHandlersFinished,
  CancellationScope,
  CancelledFailure,
  condition,
  continueAsNew,
  patched,
  setHandler,
  upsertMemo,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { SwarmResult, SwarmWorkflowInput } from '@wharf/swarm';
import { createSwarmState, remainingReuse, taskCounts } from '@wharf/swarm';
import { endSwarm } from './end-swarm.js';
import { cancelledBySignal } from './handler-definitions.js';
import { swarmSearchAttributes } from './search-attributes.js';
import { driveSwarm } from './swarm-driver.js';
import { registerSwarmHandlers } from './swarm-handlers.js';
import { MEMO_TASK_COUNTS, SwarmVisibility } from './swarm-visibility.js';
import { TemporalSwarmPort } from './temporal-swarm-port.js';

/** Most activities one run may have pending (Temporal's per-run cap is 2,000). */
const MAX_PENDING = 1_900;

/**
 * Runs a swarm: in each superstep every task whose dependencies are done and whose `†`
 * inputs resolve runs (scripts as `runSubagent` activities, `swarm:` tasks as child
 * `swarmWorkflow`s `<swarm>/swarm/<task>`, agents as child
 * `agentTaskWorkflow`s, loop instances too); the results fold into the channel state in task
 * order, outputs are written to the context, and history carries only refs and compact
 * payloads. Continues as new when history grows. Ends with the supervisor's answer, when the
 * swarm has one. A swarm whose tasks failed fails its workflow with a non-retryable
 * `WharfSwarmFailed` failure whose details hold the whole {@link SwarmResult}, unless the
 * definition says `on_failure: complete`. A cancelled run (a Temporal cancellation) schedules
 * nothing more, folds what was in flight as cancelled, and ends CANCELED (memo `status:
 * cancelled`, `cancelledAt`, `cancelledBy` when the `cancelledBy` signal named someone,
 * `taskCounts`; `WharfStatus=cancelled`); what it stored stays.
 *
 * @example
 * ```ts
 * await client.workflow.start(swarmWorkflow, { taskQueue, workflowId, args: [{ definition }] });
 * ```
 */
export async function swarmWorkflow(input: SwarmWorkflowInput): Promise<SwarmResult> {
  const { definition } = input;
  const place = {
    ownerId: input.ownerId ?? 'default',
    workflowId: workflowInfo().workflowId,
    workdir: input.workdir,
    heartbeatTimeoutMs: input.heartbeatTimeoutMs,
    dataPlane: input.dataPlane,
    readRuns: input.rerunOf?.readsFrom,
  };
  const state = createSwarmState(definition, {
    input: input.input ?? {},
    carried: input.carried,
    reuse: input.reuse,
    contextPoolCap: input.contextPoolCap,
  });
  const visibility = new SwarmVisibility(place.workflowId);
  const port = new TemporalSwarmPort(state, input, visibility);
  registerSwarmHandlers(state, port.hooks);
  // Who asked for a cancellation (`wharf cancel --by`), for the cancelled run's memo.
  let cancelledBy: string | undefined;
  setHandler(cancelledBySignal, ({ by }) => {
    if (typeof by === 'string' && by.length > 0) cancelledBy = by.slice(0, 200);
  });
  if (input.carried === undefined) visibility.announce(definition, place.ownerId, input.rerunOf);
  const ending = await driveSwarm(state, port, {
    place,
    maxConcurrent: Math.max(1, Math.min(input.maxConcurrentTasks ?? 200, MAX_PENDING)),
    waitForInputsMs: input.waitForInputsMs ?? 0,
  });
  if (ending.next === 'continue-as-new') {
    await condition(allHandlersFinished);
    // What is left of a re-run's reused results goes along; what was folded is in the state.
    const { reuse: _folded, ...rest } = input;
    const reuse = remainingReuse(state);
    const { previews } = port;
    return continueAsNew<typeof swarmWorkflow>({
      ...rest,
      carried: ending.carried,
      ...(reuse === undefined ? {} : { reuse }),
      ...(previews === undefined ? {} : { previews }),
    });
  }
  // A cancelled run (`wharf cancel`) folded its tasks in flight as cancelled and scheduled
  // nothing more: it ends CANCELED, its memo saying so beside what it did, never as completed.
  if (CancellationScope.current().consideredCancelled && patched('wharf-cancelled-run')) {
    const { result } = ending;
    upsertMemo({
      status: 'cancelled',
      cancelledAt: new Date(Date.now()).toISOString(),
      ...(cancelledBy === undefined ? {} : { cancelledBy }),
      ...(patched(MEMO_TASK_COUNTS) ? { taskCounts: taskCounts(result.tasks) } : {}),
    });
    upsertSearchAttributes([{ key: swarmSearchAttributes.status, value: 'cancelled' }]);
    throw new CancelledFailure(
      `${result.swarm} was cancelled: ${result.tasks.filter((task) => task.status === 'done').length} of ${result.tasks.length} tasks done`,
    );
  }
  // A nested run hands its parent's `swarm:` task the previews of its tasks.
  const { previews } = port;
  return endSwarm(previews === undefined ? ending.result : { ...ending.result, previews }, definition);
}
