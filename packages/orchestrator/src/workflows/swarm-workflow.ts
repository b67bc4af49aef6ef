// The swarm workflow. Deterministic: imports only @temporalio/workflow, @wharf/channels,
// @wharf/context-resolver and pure modules of this package.
import {
  ActivityFailure,
  ApplicationFailure,
  allHandlersFinished,
  CancellationScope,
  condition,
  continueAsNew,
  createEventGroup,
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
import { ChannelState, ChannelUpdate } from '@wharf/channels';
import type { SwarmDefinition, TaskDefinition } from '../dsl/swarm-schema.js';
import { addInputSignal, cancelTaskUpdate, progressQuery, stateQuery } from '../shared/definitions.js';
import { swarmSearchAttributes } from '../shared/search-attributes.js';
import { describeSwarmFailure, isTaskFailure, swarmFailedErrorType } from '../shared/swarm-failure.js';
import type {
  CarriedState,
  ContextPlan,
  ContextPool,
  SubagentResult,
  SwarmProgress,
  SwarmResult,
  SwarmWorkflowInput,
  TaskProgress,
  WharfActivities,
} from '../shared/types.js';
import { failureReaders, planTasks } from './plan-tasks.js';
import { formatBytes, renderProgressTable } from './progress-table.js';
import { runPool } from './run-pool.js';
import { channelNames, type InstanceResult, swarmChannels } from './swarm-channels.js';
import { SwarmContext } from './swarm-context.js';

/** Most activities one run may have pending (Temporal's per-run cap is 2,000). */
const MAX_PENDING = 1_900;
/**
 * History size past which a run starts no further subagent of a wide superstep: the ones in
 * flight finish, then the run continues as new (Temporal suggests staying under 4 MiB).
 */
const SPLIT_HISTORY_BYTES = 3 * 1024 * 1024;
const TERMINAL = new Set<TaskProgress['status']>(['done', 'failed', 'skipped', 'cancelled']);

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

/** An agent's own `timeouts` (milliseconds once parsed) as activity options; they win over the defaults. */
function agentTimeouts(agent: SwarmDefinition['agents'][string] | undefined): {
  startToCloseTimeout?: number;
  heartbeatTimeout?: number;
} {
  const timeouts = agent?.timeouts;
  return {
    ...(timeouts?.start_to_close === undefined ? {} : { startToCloseTimeout: timeouts.start_to_close }),
    ...(timeouts?.heartbeat === undefined ? {} : { heartbeatTimeout: timeouts.heartbeat }),
  };
}

interface ScheduledInstance {
  task: string;
  instance: number;
  inputs: Record<string, unknown>;
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
  const info = workflowInfo();
  const ownerId = input.ownerId ?? 'default';
  const runId = info.workflowId;
  const taskNames = Object.keys(definition.tasks);
  const carried = input.carried;
  const maxConcurrent = Math.max(1, Math.min(input.maxConcurrentTasks ?? 200, MAX_PENDING));

  const state = new ChannelState(swarmChannels(definition));
  if (carried !== undefined) state.restore(carried.channels);
  const context = new SwarmContext(carried?.context, input.input ?? {});
  const compacts: Record<string, string> = { ...(carried?.compacts ?? {}) };
  const contextPool: ContextPool = carried?.contextPool ?? { entries: [], added: 0, checkpoints: [] };
  // Runs started before Wharf chose contexts replay without them (no local activities).
  const withContext = patched('wharf-context-pool');
  // Runs started before Wharf skipped tasks whose inputs can no longer be written (the untaken
  // side of a `||` output) replay with the old planning: such a task failed, and so did the swarm.
  const skipUnresolvable = patched('wharf-skip-unresolvable');
  // Runs started before Wharf split a wide superstep across runs replay running it whole.
  const splitSuperstep = patched('wharf-split-superstep');
  // Tasks whose loop instances the previous run left unstarted: they resume first.
  let resume = carried?.resume ?? [];
  const progress = new Map<string, TaskProgress>(
    (
      carried?.progress ??
      taskNames.map((task) => freshProgress(task, definition.tasks[task] as TaskDefinition))
    ).map((entry) => [entry.task, entry]),
  );
  const scopes = new Map<string, CancellationScope>();
  let step = carried?.step ?? 0;
  let status: SwarmProgress['status'] = 'running';
  let inputsVersion = 0;

  const snapshotProgress = (): SwarmProgress => ({
    swarm: definition.name,
    status,
    step,
    tasks: taskNames.map((task) => ({ ...(progress.get(task) as TaskProgress) })),
  });
  const publish = (): void => setCurrentDetails(renderProgressTable(snapshotProgress()));
  const setStatus = (next: SwarmProgress['status']): void => {
    status = next;
    upsertSearchAttributes([{ key: swarmSearchAttributes.status, value: next }]);
  };

  setHandler(progressQuery, snapshotProgress, {
    description: 'Per task: status, loop instances done, bytes captured, out ids, what it waits for.',
  });
  setHandler(stateQuery, () => state.snapshot(), {
    description: 'The durable channel snapshot: results per task (refs, sizes, exit codes) and barriers.',
  });
  setHandler(
    addInputSignal,
    ({ key, value }) => {
      context.addInput(key, value, new Date().toISOString());
      inputsVersion++;
    },
    { description: 'Adds a value for †input.<key>; tasks waiting on it become ready.' },
  );
  setHandler(
    cancelTaskUpdate,
    ({ task, reason }) => {
      const entry = progress.get(task) as TaskProgress;
      if (TERMINAL.has(entry.status)) return { cancelled: false, status: entry.status };
      scopes.get(task)?.cancel();
      entry.status = 'cancelled';
      entry.reason = reason ?? 'cancelled by request';
      entry.endedAt = Date.now();
      publish();
      return { cancelled: true, status: entry.status };
    },
    {
      description: 'Cancels one task: running instances are cancelled, dependents are skipped.',
      validator: ({ task }) => {
        if (!progress.has(task)) throw new Error(`unknown task "${task}"; tasks: ${taskNames.join(', ')}`);
      },
    },
  );

  if (carried === undefined) {
    upsertSearchAttributes([
      { key: swarmSearchAttributes.swarm, value: definition.name },
      { key: swarmSearchAttributes.owner, value: ownerId },
      { key: swarmSearchAttributes.status, value: 'running' },
    ]);
    upsertMemo({ swarm: definition.name, version: definition.version, tasks: taskNames.length });
  }
  publish();

  for (;;) {
    const scheduled = resume.length > 0 ? resumeStep(resume) : planStep();
    resume = [];
    if (scheduled.length === 0) {
      if (taskNames.every((task) => TERMINAL.has((progress.get(task) as TaskProgress).status))) break;
      // Nothing can run: tasks wait on inputs that nobody will write unless a signal adds them.
      const seen = inputsVersion;
      const arrived = await condition(() => inputsVersion !== seen, input.waitForInputsMs ?? 0);
      if (!arrived) {
        for (const entry of progress.values()) {
          if (entry.status !== 'waiting' && entry.status !== 'pending') continue;
          entry.status = 'failed';
          entry.reason = `inputs never resolved: ${entry.waitingFor.join(', ')}`;
          entry.endedAt = Date.now();
        }
        publish();
        break;
      }
      continue;
    }
    step += 1;
    const plans = await planContexts(scheduled);
    const results = await runPool(
      scheduled,
      maxConcurrent,
      (item) => runInstance(item, plans[item.task]),
      splitSuperstep ? { shouldStop: historyFull } : {},
    );
    // Items start in order: the results are those of a prefix of `scheduled`.
    foldStep(scheduled.slice(0, results.length), results);
    const unstarted = [...new Set(scheduled.slice(results.length).map((item) => item.task))];
    await pruneContextPool();
    publish();
    if (unstarted.length > 0 || shouldContinueAsNew()) {
      await condition(allHandlersFinished);
      const next: CarriedState = {
        step,
        channels: state.snapshot(),
        context: context.messages(),
        progress: [...progress.values()],
        compacts,
        generation: (carried?.generation ?? 0) + 1,
        contextPool,
        ...(unstarted.length === 0 ? {} : { resume: unstarted }),
      };
      return continueAsNew<typeof swarmWorkflow>({ ...input, carried: next });
    }
  }

  const outputs: Record<string, string[]> = {};
  for (const task of taskNames) outputs[task] = [...(progress.get(task) as TaskProgress).outIds];
  // A skipped task (an untaken branch, or downstream of one) does not fail the swarm.
  const failedCount = taskNames.filter((task) => {
    const taskStatus = (progress.get(task) as TaskProgress).status;
    return taskStatus !== 'done' && !(skipUnresolvable && taskStatus === 'skipped');
  }).length;

  let supervisorResult: SwarmResult['supervisor'];
  if (definition.supervisor !== undefined) {
    setStatus('supervising');
    publish();
    const agent = definition.agents[definition.supervisor.agent];
    if (agent === undefined)
      throw ApplicationFailure.nonRetryable('supervisor agent missing', 'WharfInvalidDefinition');
    try {
      supervisorResult = await supervise.executeWithOptions(
        {
          summary: `supervisor · ${definition.supervisor.agent} · budget ${formatBytes(definition.supervisor.evidence_budget_bytes)}`,
          ...(input.heartbeatTimeoutMs === undefined ? {} : { heartbeatTimeout: input.heartbeatTimeoutMs }),
          ...agentTimeouts(agent),
        },
        [
          {
            swarm: definition.name,
            ownerId,
            runId,
            agent,
            question: definition.supervisor.question,
            budgetBytes: definition.supervisor.evidence_budget_bytes,
            compacts: orderedCompacts(),
          },
        ],
      );
    } catch (error) {
      // The swarm's outputs stand whatever the supervisor does: report its failure beside them.
      const cause =
        error instanceof ActivityFailure && error.cause !== undefined ? error.cause : (error as Error);
      supervisorResult = { answer: '', evidenceBytes: 0, error: cause.message };
    }
  }

  const failed = failedCount > 0 || supervisorResult?.error !== undefined;
  let contextPoolMetrics: SwarmResult['metrics']['context'];
  if (withContext) {
    try {
      contextPoolMetrics = await contextMetrics({ definition, pool: contextPool });
    } catch (error) {
      // The swarm's outcome stands; only this figure is missing.
      log.warn('context metrics failed', { error: (error as Error).message });
    }
  }
  setStatus(failed ? 'failed' : 'completed');
  publish();
  const result: SwarmResult = {
    swarm: definition.name,
    status: failed ? 'failed' : 'completed',
    outputs,
    tasks: snapshotProgress().tasks,
    ...(supervisorResult === undefined ? {} : { supervisor: supervisorResult }),
    metrics: {
      totalBytes: (state.get(channelNames.bytes) as number | undefined) ?? 0,
      taskCount: taskNames.length,
      failedCount,
      skippedCount: taskNames.filter((task) => (progress.get(task) as TaskProgress).status === 'skipped')
        .length,
      continuedAsNew: carried?.generation ?? 0,
      ...(contextPoolMetrics === undefined ? {} : { context: contextPoolMetrics }),
    },
  };
  // Runs that ended before Wharf failed failed swarms replay as they ran: completed.
  if (!patched('wharf-swarm-outcome')) return result;
  const failedTasks = result.tasks.filter(isTaskFailure).map((task) => task.task);
  upsertMemo({ status: result.status, failedTasks });
  if (failed && definition.on_failure !== 'complete') {
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
    if (!withContext || contextPool.entries.length === 0) return {};
    const tasks = [...new Set(scheduled.map((item) => item.task))].filter((task) => {
      const spec = definition.tasks[task] as TaskDefinition;
      return spec.inject_context !== false && spec.context?.mode !== 'none';
    });
    if (tasks.length === 0) return {};
    const now = Date.now();
    let plans: Record<string, ContextPlan>;
    try {
      plans = await planContext({ definition, pool: contextPool, tasks, now });
    } catch (error) {
      // A context is a help, not a precondition: run the tasks without one rather than stop.
      log.warn('context planning failed; tasks run without context', { error: (error as Error).message });
      return {};
    }
    const read = new Map<string, number>();
    for (const plan of Object.values(plans)) {
      for (const entry of plan.entries)
        read.set(entry.taskId, Math.max(read.get(entry.taskId) ?? 0, entry.relevance));
    }
    for (const entry of contextPool.entries) {
      const relevance = read.get(entry.taskId);
      if (relevance === undefined) continue;
      entry.lastAccessed = now;
      entry.relevanceScore = Math.max(entry.relevanceScore, relevance);
    }
    return plans;
  }

  /**
   * Runs the `hooks.post_task` `checkpoint_and_prune` entries that are due, each counting the
   * outputs added since it last pruned. A prune that fails is retried at the next step.
   */
  async function pruneContextPool(): Promise<void> {
    if (!withContext) return;
    const hooks = definition.hooks?.post_task ?? [];
    for (const [index, { checkpoint_and_prune: hook }] of hooks.entries()) {
      const sinceCheckpoint = contextPool.added - (contextPool.checkpoints[index] ?? 0);
      if (sinceCheckpoint < hook.every) continue;
      const now = Date.now();
      let removed: Set<string>;
      try {
        removed = new Set(await pruneContext({ definition, pool: contextPool, hook, sinceCheckpoint, now }));
      } catch (error) {
        log.warn('context pruning failed; the pool stays as it is', { error: (error as Error).message });
        continue;
      }
      contextPool.entries = contextPool.entries.filter((entry) => !removed.has(entry.taskId));
      contextPool.checkpoints[index] = contextPool.added;
      contextPool.lastPrunedAt = now;
    }
  }

  /** Decides what runs in the next superstep; marks skipped and waiting tasks on the way. */
  function planStep(): ScheduledInstance[] {
    const scheduled: ScheduledInstance[] = [];
    const decisions = planTasks({
      definition,
      status: (task) => (progress.get(task) as TaskProgress).status,
      joined: (task) => state.isReady(channelNames.join(task)),
      resolve: (task, instance) =>
        context.resolveInputs(task, (definition.tasks[task] as TaskDefinition).inputs, instance),
      skipUnresolvable,
    });
    for (const decision of decisions) {
      const entry = progress.get(decision.task) as TaskProgress;
      if (decision.action === 'skip') {
        entry.status = 'skipped';
        entry.reason = decision.reason;
        entry.waitingFor = [];
        entry.endedAt = Date.now();
        continue;
      }
      if (decision.action === 'wait') {
        entry.status = 'waiting';
        entry.waitingFor = decision.waitingFor;
        continue;
      }
      // Gates and map loops are planned only when the view can evaluate them (not yet here).
      if (decision.action !== 'run') continue;
      const spec = definition.tasks[decision.task] as TaskDefinition;
      if (spec.depends_on.length > 0) state.consume(channelNames.join(decision.task));
      entry.status = 'running';
      entry.waitingFor = [];
      entry.startedAt = Date.now();
      for (const { instance, inputs } of decision.instances)
        scheduled.push({ task: decision.task, instance, inputs });
    }
    return scheduled;
  }

  /**
   * The instances a previous run left unstarted, of tasks cut by a history bound. A running
   * task's instances start in order, so they are those from `instances.done` on.
   */
  function resumeStep(tasks: readonly string[]): ScheduledInstance[] {
    const scheduled: ScheduledInstance[] = [];
    for (const task of tasks) {
      const spec = definition.tasks[task] as TaskDefinition;
      const entry = progress.get(task) as TaskProgress;
      const total = entry.instances.total;
      for (let instance = entry.instances.done; instance < total; instance++) {
        const resolution = context.resolveInputs(task, spec.inputs, total > 1 ? instance : undefined);
        // The context only grows, so inputs that resolved when the task started still do.
        if (!resolution.ready) log.warn('resumed instance lost inputs', { task, instance });
        scheduled.push({ task, instance, inputs: resolution.ready ? resolution.values : {} });
      }
    }
    return scheduled;
  }

  async function runInstance(
    item: ScheduledInstance,
    contextPlan: ContextPlan | undefined,
  ): Promise<SubagentResult | { cancelled: true; reason: string }> {
    const spec = definition.tasks[item.task] as TaskDefinition;
    const total = spec.loop?.count ?? 1;
    const label = total > 1 ? `${item.task}#${item.instance}` : item.task;
    const entry = progress.get(item.task) as TaskProgress;
    if (entry.status === 'cancelled') return { cancelled: true, reason: entry.reason ?? 'cancelled' };
    let scope = scopes.get(item.task);
    if (scope === undefined) {
      scope = new CancellationScope();
      scopes.set(item.task, scope);
    }
    const kind = spec.script !== undefined ? 'script' : `agent ${spec.agent ?? ''}`;
    // One event group per subagent: the Web UI groups its activity's events under its label.
    const group = createEventGroup(`${label} · ${kind}`, { id: `subagent:${label}` });
    try {
      return await scope.run(() =>
        group.withScope(() =>
          runSubagent.executeWithOptions(
            {
              summary: `${label} · ${kind}${spec.description ? ` · ${spec.description}` : ''}`,
              ...(input.heartbeatTimeoutMs === undefined
                ? {}
                : { heartbeatTimeout: input.heartbeatTimeoutMs }),
              ...(spec.script?.timeout_ms === undefined
                ? {}
                : { startToCloseTimeout: spec.script.timeout_ms + 60_000 }),
              ...agentTimeouts(spec.agent === undefined ? undefined : definition.agents[spec.agent]),
            },
            [
              {
                swarm: definition.name,
                ownerId,
                runId,
                task: item.task,
                instance: item.instance,
                definition: spec,
                ...(spec.agent === undefined
                  ? {}
                  : { agent: definition.agents[spec.agent] as SwarmDefinition['agents'][string] }),
                ...(definition.limits === undefined ? {} : { limits: definition.limits }),
                inputs: item.inputs,
                ...(input.workdir === undefined ? {} : { workdir: input.workdir }),
                ...(contextPlan === undefined ? {} : { context: contextPlan }),
                inRefs: spec.depends_on.flatMap(
                  (dependency) => (progress.get(dependency) as TaskProgress).outIds,
                ),
              },
            ],
          ),
        ),
      );
    } catch (error) {
      if (isCancellation(error)) return { cancelled: true, reason: entry.reason ?? 'cancelled' };
      const message =
        error instanceof ActivityFailure && error.cause !== undefined
          ? error.cause.message
          : (error as Error).message;
      return {
        status: 'failed',
        outputs: [],
        compact: `[${label}] failed before producing output: ${message}`,
        bytes: 0,
        durationMs: 0,
        preview: '',
        stderrTail: message,
      };
    }
  }

  /** Folds one superstep's results in task order (the order of `scheduled`), never completion order. */
  function foldStep(
    scheduled: readonly ScheduledInstance[],
    results: readonly (SubagentResult | { cancelled: true; reason: string })[],
  ): void {
    const updates: ChannelUpdate[] = [];
    const finishedTasks = new Set<string>();
    scheduled.forEach((item, index) => {
      const result = results[index] as SubagentResult | { cancelled: true; reason: string };
      const spec = definition.tasks[item.task] as TaskDefinition;
      const total = spec.loop?.count ?? 1;
      const entry = progress.get(item.task) as TaskProgress;
      const label = total > 1 ? `${item.task}#${item.instance}` : item.task;
      const writes: [string, unknown][] = [];
      let record: InstanceResult;
      if ('cancelled' in result) {
        record = { instance: item.instance, status: 'cancelled', outIds: [], bytes: 0 };
      } else {
        record = {
          instance: item.instance,
          status: result.status,
          outIds: result.outputs.map((ref) => ref.outId),
          bytes: result.bytes,
          ...(result.exitCode === undefined ? {} : { exitCode: result.exitCode }),
        };
        compacts[label] = result.compact;
        entry.outIds.push(...record.outIds);
        entry.bytesCaptured += result.bytes;
        if (result.status === 'failed' && entry.status !== 'cancelled') {
          entry.status = 'failed';
          entry.reason = failureReason(result);
        }
        context.recordOutput({
          task: item.task,
          instance: total > 1 ? item.instance : undefined,
          output: spec.output,
          result,
          date: new Date().toISOString(),
          wholeFailure: skipUnresolvable,
        });
        writes.push([channelNames.bytes, result.bytes]);
        const main = record.outIds[0];
        if (main !== undefined) {
          const now = Date.now();
          contextPool.entries.push({
            taskId: label,
            task: item.task,
            outId: main,
            completedAt: now,
            lastAccessed: now,
            relevanceScore: 0,
            ...(spec.agent === undefined ? {} : { agent: spec.agent }),
          });
          contextPool.added += 1;
        }
      }
      writes.push([channelNames.results(item.task), record]);
      entry.instances.done += 1;
      if (entry.instances.done === entry.instances.total) finishedTasks.add(item.task);
      updates.push(ChannelUpdate.fromList(writes, { label }));
    });
    // A task that finished well releases its dependents' barriers.
    for (const task of finishedTasks) {
      const entry = progress.get(task) as TaskProgress;
      if (entry.status === 'running') entry.status = 'done';
      entry.endedAt = Date.now();
      // A failed task releases only the dependents that read its `||` failure branch.
      const released =
        entry.status === 'done'
          ? taskNames.filter((other) => (definition.tasks[other] as TaskDefinition).depends_on.includes(task))
          : entry.status === 'failed' && skipUnresolvable
            ? failureReaders(definition, task)
            : [];
      const arrivals: [string, unknown][] = released.map((other) => [
        channelNames.join(other),
        { [task]: entry.outIds[0] ?? null },
      ]);
      if (arrivals.length > 0) updates.push(ChannelUpdate.fromList(arrivals, { label: `${task} done` }));
    }
    state.foldSuperstep(step, updates);
  }

  /** True once this run should start no further subagent (see {@link SPLIT_HISTORY_BYTES}). */
  function historyFull(): boolean {
    const current = workflowInfo();
    return (
      current.continueAsNewSuggested ||
      current.historyLength >= (input.historyEventLimit ?? 10_000) ||
      current.historySize >= SPLIT_HISTORY_BYTES
    );
  }

  function shouldContinueAsNew(): boolean {
    const current = workflowInfo();
    return current.continueAsNewSuggested || current.historyLength >= (input.historyEventLimit ?? 10_000);
  }

  function orderedCompacts(): string[] {
    const out: string[] = [];
    for (const task of taskNames) {
      const total = definition.tasks[task]?.loop?.count ?? 1;
      for (let instance = 0; instance < total; instance++) {
        const compact = compacts[total > 1 ? `${task}#${instance}` : task];
        if (compact !== undefined) out.push(compact);
      }
    }
    return out;
  }
}

function freshProgress(task: string, spec: TaskDefinition): TaskProgress {
  return {
    task,
    status: 'pending',
    instances: { done: 0, total: spec.loop?.count ?? 1 },
    bytesCaptured: 0,
    outIds: [],
    waitingFor: [],
  };
}

function failureReason(result: SubagentResult): string {
  const parts: string[] = [];
  if (result.exitCode !== undefined && result.exitCode !== null) parts.push(`exit ${result.exitCode}`);
  if (result.signal) parts.push(`signal ${result.signal}`);
  if (result.timedOut) parts.push('timed out');
  const tail = result.stderrTail?.trim().split('\n').slice(-3).join(' ⏎ ');
  if (tail) parts.push(tail.length > 300 ? `…${tail.slice(-300)}` : tail);
  return parts.join(' · ') || 'failed';
}
