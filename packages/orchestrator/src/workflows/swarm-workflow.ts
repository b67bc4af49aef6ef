// The swarm workflow: the Temporal driver of a SwarmRun (activities, conditions, handlers,
// continue-as-new, memo, search attributes, details). Planning, folding and carried state are
// pure, in ../swarm/. Deterministic: imports only @temporalio/workflow and pure modules.
import {
  ActivityFailure,
  ApplicationFailure,
  allHandlersFinished,
  CancellationScope,
  ChildWorkflowFailure,
  condition,
  continueAsNew,
  createEventGroup,
  executeChild,
  isCancellation,
  log,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  upsertMemo,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { pendingApprovals, renderPendingApprovals } from '../control/approval-gate.js';
import { loopCaps, TaskSlots } from '../control/task-slots.js';
import {
  addInputSignal,
  approveTaskUpdate,
  cancelTaskUpdate,
  progressQuery,
  stateQuery,
} from '../shared/definitions.js';
import { formatBytes, renderProgressTable } from '../shared/progress-table.js';
import { swarmSearchAttributes } from '../shared/search-attributes.js';
import { describeSwarmFailure, isTaskFailure, swarmFailedErrorType } from '../shared/swarm-failure.js';
import { spawnWorkerToolName } from '../shared/tool-names.js';
import type {
  ContextPlan,
  SubagentResult,
  SwarmProgress,
  SwarmResult,
  SwarmWorkflowInput,
  WharfActivities,
} from '../shared/types.js';
import { type RunPlace, type SubagentCall, subagentCall, supervisorCall } from '../swarm/activity-calls.js';
import { DEFAULT_CONTEXT_POOL_CAP } from '../swarm/context-pool-state.js';
import { failedBeforeOutput } from '../swarm/subagent-failure.js';
import { type InstanceOutcome, type ScheduledInstance, SwarmRun } from '../swarm/swarm-run.js';
import { agentTaskWorkflow, agentWorkflowId } from './agent-task-workflow.js';
import { runPool } from './run-pool.js';

/** Most activities one run may have pending (Temporal's per-run cap is 2,000). */
const MAX_PENDING = 1_900;
/**
 * History size past which a run starts no further subagent of a wide superstep: the ones in
 * flight finish, then the run continues as new (Temporal suggests staying under 4 MiB).
 */
const SPLIT_HISTORY_BYTES = 3 * 1024 * 1024;

const { runSubagent, supervise } = proxyActivities<WharfActivities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '20 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    // Bounded: since SDK 1.21 an oversized result fails with a retryable error; never loop on it.
    maximumAttempts: 4,
    nonRetryableErrorTypes: ['WharfInvalidDefinition', 'WharfForbidden', 'WharfUnknownModel'],
  },
});

// Context choice, pruning and metrics run stdio-limits' rules on metadata next to the workflow:
// their (large) input stays out of history, only their small results are recorded.
const { planContext, pruneContext, contextMetrics } = proxyLocalActivities<WharfActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 3 },
});

/** The message of an activity's failure (its cause), or of any other error. */
function failureMessage(error: unknown): string {
  // An agent task's child workflow failed (its agentStart refused the task): say why.
  let cause = error;
  while (
    (cause instanceof ActivityFailure || cause instanceof ChildWorkflowFailure) &&
    cause.cause !== undefined
  ) {
    cause = cause.cause;
  }
  return (cause as Error).message;
}

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
    runId: workflowInfo().workflowId,
    workdir: input.workdir,
    heartbeatTimeoutMs: input.heartbeatTimeoutMs,
  };
  const maxConcurrent = Math.max(1, Math.min(input.maxConcurrentTasks ?? 200, MAX_PENDING));
  // Runs started before Wharf chose contexts replay without them (no local activities).
  const withContext = patched('wharf-context-pool');
  // Runs started before Wharf skipped tasks whose inputs can no longer be written (the untaken
  // side of a `||` output) replay with the old planning: such a task failed, and so did the swarm.
  const skipUnresolvable = patched('wharf-skip-unresolvable');
  // Runs started before Wharf split a wide superstep across runs replay running it whole.
  const splitSuperstep = patched('wharf-split-superstep');
  // Runs started before Wharf folded `†channels.<name>` outputs into the user's channels wrote
  // and read them in the context; only swarms that declare channels ask.
  const userChannels = Object.keys(definition.channels).length > 0 && patched('wharf-user-channels');
  // `when:`, map loops, `loop.max_concurrency` and `approval:` gates. Asked only of definitions
  // that use them, so the histories of other swarms stay as they were.
  const controlFlow = usesControlFlow(definition) && patched('wharf-control-flow');
  // Runs started before Wharf capped the context pool carry it whole.
  const poolCap = patched('wharf-pool-cap')
    ? Math.max(1, Math.floor(input.contextPoolCap ?? DEFAULT_CONTEXT_POOL_CAP))
    : undefined;
  const run = new SwarmRun({
    definition,
    input: input.input ?? {},
    ...(input.carried === undefined ? {} : { carried: input.carried }),
    skipUnresolvable,
    userChannels,
    // Runs started before Wharf applied `limits.cleanup_strategy` kept the whole pool; only
    // swarms that set one ask.
    cleanupPool:
      withContext && definition.limits?.cleanup_strategy !== undefined && patched('wharf-cleanup-strategy'),
    controlFlow,
  });
  const scopes = new Map<string, CancellationScope>();
  const slots = new TaskSlots(controlFlow ? loopCaps(definition.tasks) : {});
  // Bumped by every signal or update that may let a waiting task run.
  let inputsVersion = 0;
  let memoApprovals = '';

  /** The Web UI's current details: the gates waiting (with the command that answers them), then the table. */
  const publish = (): void => {
    const progress = run.progress();
    const gates = controlFlow ? pendingApprovals(progress) : [];
    const waiting = renderPendingApprovals(gates, place.runId);
    const table = renderProgressTable(progress);
    setCurrentDetails(waiting === '' ? table : `${waiting}\n\n${table}`);
    const names = gates.map((gate) => gate.task);
    if (controlFlow && names.join(',') !== memoApprovals) {
      memoApprovals = names.join(',');
      upsertMemo({ pendingApprovals: names });
    }
  };
  const setStatus = (next: SwarmProgress['status']): void => {
    run.status = next;
    upsertSearchAttributes([{ key: swarmSearchAttributes.status, value: next }]);
  };
  setHandler(progressQuery, () => run.progress(), {
    description: 'Per task: status, loop instances done, bytes captured, out ids, what it waits for.',
  });
  setHandler(stateQuery, () => run.channels(), {
    description: 'The durable channel snapshot: results per task (refs, sizes, exit codes) and barriers.',
  });
  setHandler(
    addInputSignal,
    ({ key, value }) => {
      run.addInput(key, value, new Date().toISOString());
      inputsVersion++;
    },
    { description: 'Adds a value for †input.<key>; tasks waiting on it become ready.' },
  );
  setHandler(
    cancelTaskUpdate,
    ({ task, reason }) => {
      const outcome = run.cancel(task, reason, Date.now());
      if (!outcome.cancelled) return outcome;
      scopes.get(task)?.cancel();
      publish();
      return outcome;
    },
    {
      description: 'Cancels one task: running instances are cancelled, dependents are skipped.',
      validator: ({ task }) => {
        if (!run.hasTask(task)) throw new Error(`unknown task "${task}"; tasks: ${run.taskNames.join(', ')}`);
      },
    },
  );

  setHandler(
    approveTaskUpdate,
    (request) => {
      const outcome = run.answerApproval(request, Date.now());
      inputsVersion++;
      publish();
      return outcome;
    },
    {
      description:
        "Approves or rejects a task's approval gate (with a comment); a rejected task is skipped or failed.",
      validator: (request) => {
        if (!controlFlow) throw new Error('this swarm has no approval gate');
        run.checkApproval(request);
      },
    },
  );

  if (input.carried === undefined) {
    upsertSearchAttributes([
      { key: swarmSearchAttributes.swarm, value: definition.name },
      { key: swarmSearchAttributes.owner, value: place.ownerId },
      { key: swarmSearchAttributes.status, value: 'running' },
    ]);
    upsertMemo({ swarm: definition.name, version: definition.version, tasks: run.taskNames.length });
  }
  publish();

  for (;;) {
    const { instances: scheduled, lostInputs } = run.nextStep(Date.now());
    for (const lost of lostInputs) log.warn('resumed instance lost inputs', lost);
    if (scheduled.length === 0) {
      if (run.allFinished()) break;
      const seen = inputsVersion;
      if (controlFlow && run.pendingApprovals().length > 0) {
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
      splitSuperstep ? { shouldStop: historyFull } : {},
    );
    // Items start in order: the results are those of a prefix of `scheduled`.
    run.fold(scheduled.slice(0, results.length), results, Date.now());
    const unstarted = [...new Set(scheduled.slice(results.length).map((item) => item.task))];
    await pruneContextPool();
    if (poolCap !== undefined) run.contextPool.applyCap(definition, run.progress().tasks, poolCap);
    publish();
    if (unstarted.length > 0 || shouldContinueAsNew()) {
      await condition(allHandlersFinished);
      return continueAsNew<typeof swarmWorkflow>({ ...input, carried: run.carry(unstarted) });
    }
  }

  let supervisor: SwarmResult['supervisor'];
  if (definition.supervisor !== undefined) {
    setStatus('supervising');
    publish();
    const call = supervisorCall(run, place);
    if (call === undefined)
      throw ApplicationFailure.nonRetryable('supervisor agent missing', 'WharfInvalidDefinition');
    const summary = `supervisor · ${definition.supervisor.agent} · budget ${formatBytes(call.input.budgetBytes)}`;
    try {
      supervisor = await supervise.executeWithOptions({ summary, ...call.options }, [call.input]);
    } catch (error) {
      // The swarm's outputs stand whatever the supervisor does: report its failure beside them.
      supervisor = { answer: '', evidenceBytes: 0, error: failureMessage(error) };
    }
  }
  let context: SwarmResult['metrics']['context'];
  if (withContext) {
    try {
      context = await contextMetrics({ definition, pool: run.contextPool.pool });
    } catch (error) {
      // The swarm's outcome stands; only this figure is missing.
      log.warn('context metrics failed', { error: (error as Error).message });
    }
  }
  const result = run.result({ supervisor, context });
  setStatus(result.status);
  publish();
  // Runs that ended before Wharf failed failed swarms replay as they ran: completed.
  if (!patched('wharf-swarm-outcome')) return result;
  const failedTasks = result.tasks.filter(isTaskFailure).map((task) => task.task);
  upsertMemo({ status: result.status, failedTasks });
  if (result.status === 'failed' && definition.on_failure !== 'complete') {
    // A failed workflow is what the Web UI, its Failures filter and visibility show as failed;
    // the result travels whole in the failure's details (WharfClient.result returns it).
    throw ApplicationFailure.create({
      type: swarmFailedErrorType,
      message: describeSwarmFailure(result),
      nonRetryable: true,
      details: [result],
    });
  }
  return result;

  /**
   * The context of every task about to run, chosen from the pool (one local activity per
   * superstep, none while the pool is empty). Chosen outputs count as read, for LRU pruning.
   */
  async function planContexts(scheduled: readonly ScheduledInstance[]): Promise<Record<string, ContextPlan>> {
    if (!withContext || run.contextPool.pool.entries.length === 0) return {};
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
    if (!withContext) return;
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
   * call, so a worker that dies mid-task never pays again for a finished model call. Runs
   * started before Wharf did this replay with one `runSubagent` activity per agent task.
   */
  function dispatchInstance(call: SubagentCall): Promise<SubagentResult> {
    if (call.input.agent !== undefined && patched('wharf-durable-agent')) {
      return executeChild(agentTaskWorkflow, {
        workflowId: agentWorkflowId(workflowInfo().workflowId, call.label),
        staticSummary: call.options.summary,
        args: [
          {
            ...call.input,
            ...(input.heartbeatTimeoutMs === undefined
              ? {}
              : { heartbeatTimeoutMs: input.heartbeatTimeoutMs }),
            // The agents its `spawn_worker` tool may start (no tool of that name before Wharf had it).
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

/** True when the definition uses `when:`, a map loop, `loop.max_concurrency` or an `approval:` gate. */
function usesControlFlow(definition: SwarmWorkflowInput['definition']): boolean {
  return Object.values(definition.tasks).some(
    (task) =>
      task.when !== undefined ||
      task.approval !== undefined ||
      task.loop?.type === 'map' ||
      task.loop?.max_concurrency !== undefined,
  );
}
