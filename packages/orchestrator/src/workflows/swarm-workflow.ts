// The swarm workflow: the Temporal driver of a SwarmRun (supersteps of activities and agent
// workflows, conditions, continue-as-new). Its handlers, visibility and finish are the sibling
// swarm-*.ts and finish-swarm.ts modules; planning, folding and carried state are pure, in
// ../swarm/. Deterministic: imports only @temporalio/workflow and pure modules.
import {
  allHandlersFinished,
  CancellationScope,
  condition,
  continueAsNew,
  createEventGroup,
  executeChild,
  isCancellation,
  log,
  workflowInfo,
} from '@temporalio/workflow';
import { loopCaps, TaskSlots } from '../control/task-slots.js';
import { spawnWorkerToolName } from '../shared/tool-names.js';
import type { ContextPlan, SubagentResult, SwarmResult, SwarmWorkflowInput } from '../shared/types.js';
import { type RunPlace, type SubagentCall, subagentCall } from '../swarm/activity-calls.js';
import { failedBeforeOutput } from '../swarm/subagent-failure.js';
import { type InstanceOutcome, type ScheduledInstance, SwarmRun } from '../swarm/swarm-run.js';
import { agentTaskWorkflow, agentWorkflowId } from './agent-task-workflow.js';
import { finishSwarm } from './finish-swarm.js';
import { runPool } from './run-pool.js';
import { failureMessage, planContext, pruneContext, runSubagent } from './swarm-activities.js';
import { registerSwarmHandlers } from './swarm-handlers.js';
import { SwarmVisibility } from './swarm-visibility.js';

/** Most activities one run may have pending (Temporal's per-run cap is 2,000). */
const MAX_PENDING = 1_900;
/**
 * History size past which a run starts no further subagent of a wide superstep: the ones in
 * flight finish, then the run continues as new (Temporal suggests staying under 4 MiB).
 */
const SPLIT_HISTORY_BYTES = 3 * 1024 * 1024;

/**
 * Runs a swarm: in each superstep every task whose dependencies are done and whose `†`
 * inputs resolve runs as `runSubagent` activities in parallel (loop instances too); the
 * results fold into the channel state in task order, outputs are written to the context,
 * and history carries only refs and compact payloads. Continues as new when history grows.
 * Ends with the supervisor's answer, when the swarm has one. A swarm whose tasks failed fails
 * its workflow with a non-retryable `WharfSwarmFailed` failure whose details hold the whole
 * {@link SwarmResult}, unless the definition says `on_failure: complete`.
 *
 * @example
 * ```ts
 * await client.workflow.start(swarmWorkflow, { taskQueue, workflowId, args: [{ definition }] });
 * ```
 */
export async function swarmWorkflow(input: SwarmWorkflowInput): Promise<SwarmResult> {
  const { definition } = input;
  const place: RunPlace = {
    ownerId: input.ownerId ?? 'default',
    workflowId: workflowInfo().workflowId,
    workdir: input.workdir,
    heartbeatTimeoutMs: input.heartbeatTimeoutMs,
  };
  const maxConcurrent = Math.max(1, Math.min(input.maxConcurrentTasks ?? 200, MAX_PENDING));
  const run = new SwarmRun({
    definition,
    input: input.input ?? {},
    ...(input.carried === undefined ? {} : { carried: input.carried }),
    ...(input.contextPoolCap === undefined ? {} : { contextPoolCap: input.contextPoolCap }),
  });
  const scopes = new Map<string, CancellationScope>();
  const slots = new TaskSlots(loopCaps(definition.tasks));
  const visibility = new SwarmVisibility(run, place.workflowId);
  const publish = (): void => visibility.publish();
  // Bumped by every signal or update that may let a waiting task run.
  let inputsVersion = 0;
  registerSwarmHandlers(run, { scopes, publish, inputsChanged: () => inputsVersion++ });
  if (input.carried === undefined) visibility.announce(place.ownerId);
  publish();

  for (;;) {
    const { instances: scheduled, lostInputs } = run.nextStep(Date.now());
    for (const lost of lostInputs) log.warn('resumed instance lost inputs', lost);
    if (scheduled.length === 0) {
      if (run.allFinished()) break;
      const seen = inputsVersion;
      if (run.pendingApprovals().length > 0) {
        // Gates wait for an answer (an update), or for the first of their timeouts.
        publish();
        const deadline = run.nextApprovalDeadline();
        if (deadline === undefined) await condition(() => inputsVersion !== seen);
        else await condition(() => inputsVersion !== seen, Math.max(1, deadline - Date.now()));
        continue;
      }
      // Nothing can run: tasks wait on inputs that nobody will write unless a signal adds them.
      const arrived = await condition(() => inputsVersion !== seen, input.waitForInputsMs ?? 0);
      if (arrived) continue;
      run.failUnresolved(Date.now());
      publish();
      break;
    }
    const plans = await planContexts(scheduled);
    const results = await runPool(
      scheduled,
      maxConcurrent,
      (item) => slots.run(item.task, () => runInstance(item, plans[item.task])),
      { shouldStop: historyFull },
    );
    // Items start in order: the results are those of a prefix of `scheduled`.
    run.fold(scheduled.slice(0, results.length), results, Date.now());
    const unstarted = [...new Set(scheduled.slice(results.length).map((item) => item.task))];
    await pruneContextPool();
    run.capContextPool();
    publish();
    if (unstarted.length > 0 || shouldContinueAsNew()) {
      await condition(allHandlersFinished);
      return continueAsNew<typeof swarmWorkflow>({ ...input, carried: run.carry(unstarted) });
    }
  }

  return finishSwarm(run, { place, visibility });

  /**
   * The context of every task about to run, chosen from the pool (one local activity per
   * superstep, none while the pool is empty). Chosen outputs count as read, for LRU pruning.
   */
  async function planContexts(scheduled: readonly ScheduledInstance[]): Promise<Record<string, ContextPlan>> {
    if (run.contextPool.pool.entries.length === 0) return {};
    const tasks = run.contextTasks(scheduled);
    if (tasks.length === 0) return {};
    const now = Date.now();
    try {
      const plans = await planContext({ definition, pool: run.contextPool.pool, tasks, now });
      run.contextPool.markRead(plans, now);
      return plans;
    } catch (error) {
      // A context is a help, not a precondition: run the tasks without one rather than stop.
      log.warn('context planning failed; tasks run without context', { error: (error as Error).message });
      return {};
    }
  }

  /** Runs the `hooks.post_task` prunes that are due; a prune that fails is retried at the next step. */
  async function pruneContextPool(): Promise<void> {
    for (const { index, hook, sinceCheckpoint } of run.contextPool.duePrunes(definition)) {
      const now = Date.now();
      try {
        const removed = await pruneContext({
          definition,
          pool: run.contextPool.pool,
          hook,
          sinceCheckpoint,
          now,
        });
        run.contextPool.applyPrune(index, removed, now);
      } catch (error) {
        log.warn('context pruning failed; the pool stays as it is', { error: (error as Error).message });
      }
    }
  }

  /** Runs one instance in its task's cancellation scope and event group; any failure becomes a failed result. */
  async function runInstance(
    item: ScheduledInstance,
    context: ContextPlan | undefined,
  ): Promise<InstanceOutcome> {
    const cancelled = run.cancelReason(item.task);
    if (cancelled !== undefined) return { cancelled: true, reason: cancelled };
    let scope = scopes.get(item.task);
    if (scope === undefined) {
      scope = new CancellationScope();
      scopes.set(item.task, scope);
    }
    const call = subagentCall(run, item, place, context);
    // One event group per subagent: the Web UI groups its activity's events under its label.
    const group = createEventGroup(call.title, { id: `subagent:${call.label}` });
    try {
      return await scope.run(() => group.withScope(() => dispatchInstance(call)));
    } catch (error) {
      if (isCancellation(error))
        return { cancelled: true, reason: run.cancelReason(item.task) ?? 'cancelled' };
      return failedBeforeOutput(call.label, failureMessage(error));
    }
  }

  /**
   * Dispatches one task instance to its subagent: a script runs as a `runSubagent` activity;
   * an agent runs as an `agentTaskWorkflow` child, one activity per model call and per tool
   * call, so a worker that dies mid-task never pays again for a finished model call.
   */
  function dispatchInstance(call: SubagentCall): Promise<SubagentResult> {
    if (call.input.agent !== undefined) {
      return executeChild(agentTaskWorkflow, {
        workflowId: agentWorkflowId(workflowInfo().workflowId, call.label),
        staticSummary: call.options.summary,
        args: [
          {
            ...call.input,
            ...(input.heartbeatTimeoutMs === undefined
              ? {}
              : { heartbeatTimeoutMs: input.heartbeatTimeoutMs }),
            // The agents its `spawn_worker` tool may start.
            ...(call.input.agent.tools.includes(spawnWorkerToolName) ? { spawnable: definition.agents } : {}),
          },
        ],
      });
    }
    return runSubagent.executeWithOptions(call.options, [call.input]);
  }

  /** True once this run should start no further subagent (see {@link SPLIT_HISTORY_BYTES}). */
  function historyFull(): boolean {
    const current = workflowInfo();
    return shouldContinueAsNew() || current.historySize >= SPLIT_HISTORY_BYTES;
  }

  function shouldContinueAsNew(): boolean {
    const current = workflowInfo();
    return current.continueAsNewSuggested || current.historyLength >= (input.historyEventLimit ?? 10_000);
  }
}
