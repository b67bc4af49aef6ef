// The SwarmPort of a real swarm run: activities, child workflows, conditions and the workflow
// clock of @temporalio/workflow. Deterministic: imports only @temporalio/workflow and pure modules.
import {
  CancellationScope,
  condition,
  createEventGroup,
  executeChild,
  isCancellation,
  log,
  patched,
  workflowInfo,
} from '@temporalio/workflow';
import type {
  InstanceOutcome,
  SubagentInput,
  SubagentRefInput,
  SubagentResult,
  SuperviseResult,
  SwarmResult,
  SwarmState,
  SwarmWorkflowInput,
} from '@wharf/swarm';
import {
  agentTaskInput,
  childSwarm,
  childSwarmResult,
  failedBeforeOutput,
  isLooped,
  type SubagentCall,
  type SupervisorCall,
  splitSubagentInput,
  swarmTaskWorkflowId,
} from '@wharf/swarm';
import { agentTaskWorkflow, agentWorkflowId } from './agent-task-workflow.js';
import {
  contextMetrics,
  failureMessage,
  indexItems,
  localActivityOptions,
  planContext,
  pruneContext,
  runSubagent,
  storeSubagentDefinition,
  writeManifestPart,
} from './swarm-activities.js';
import type { SwarmPort } from './swarm-driver.js';
import type { SwarmHandlerHooks } from './swarm-handlers.js';
import type { SwarmVisibility } from './swarm-visibility.js';

/**
 * The patch behind a task stopped in flight by a cancellation ending `cancelled` (counted so in
 * the memo's `taskCounts`) rather than `done`: a run begun before it folds as it did.
 */
export const CANCELLED_INSTANCE = 'wharf-cancelled-instance';

/**
 * History size past which a run starts no further subagent of a wide superstep: the ones in
 * flight finish, then the run continues as new (Temporal suggests staying under 4 MiB).
 */
const SPLIT_HISTORY_BYTES = 3 * 1024 * 1024;

/**
 * The port `driveSwarm` runs against inside the workflow, and the hooks its handlers call:
 * each task's instances run in a cancellation scope of the task (the `cancelTask` update
 * cancels it) and an event group of their own (but a wide script loop's instances past its first few); a signal or update bumps the version
 * `waitForChange` waits on.
 *
 * @example
 * ```ts
 * const port = new TemporalSwarmPort(state, input, visibility);
 * registerSwarmHandlers(state, port.hooks);
 * const ending = await driveSwarm(state, port, options);
 * ```
 */
export class TemporalSwarmPort implements SwarmPort {
  /** Read only: the cancel reason of a task, the agents a `spawn_worker` tool may start. */
  readonly #state: Readonly<SwarmState>;
  readonly #input: SwarmWorkflowInput;
  readonly #visibility: SwarmVisibility;
  readonly #scopes = new Map<string, CancellationScope>();
  /** Per script task, the definition this run last stored for its instances (as JSON) and its ref. */
  readonly #definitions = new Map<string, { json: string; ref: Promise<string> }>();
  /** Bumped by every signal or update that may let a waiting task run. */
  #version = 0;
  /** A nested run only: the previews of its tasks without a loop, for its parent (carried across continue-as-new). */
  readonly #previews: Record<string, string> | undefined;

  constructor(state: Readonly<SwarmState>, input: SwarmWorkflowInput, visibility: SwarmVisibility) {
    this.#state = state;
    this.#input = input;
    this.#visibility = visibility;
    this.#previews = input.parent === undefined ? undefined : { ...input.previews };
  }

  /** A nested run's previews so far (see `SwarmResult.previews`); undefined for a run that is not nested. */
  get previews(): Record<string, string> | undefined {
    return this.#previews === undefined ? undefined : { ...this.#previews };
  }

  /** What the swarm's handlers reach beyond the run. */
  get hooks(): SwarmHandlerHooks {
    return {
      cancelRunning: (task) => this.#scopes.get(task)?.cancel(),
      publish: () => this.publish(this.#state),
      inputsChanged: () => {
        this.#version += 1;
      },
    };
  }

  now(): number {
    return Date.now();
  }

  async runInstance(call: SubagentCall): Promise<InstanceOutcome> {
    const { task } = call.input;
    let scope = this.#scopes.get(task);
    if (scope === undefined) {
      scope = new CancellationScope();
      this.#scopes.set(task, scope);
    }
    // One event group per subagent: the Web UI groups its events under its label. A script
    // loop's instance past its first few (its result omits its compact payload) is one activity
    // whose summary names it: a group would only repeat its label in every such schedule.
    const group =
      call.input.omit === undefined
        ? createEventGroup(call.title, { id: `subagent:${call.label}` })
        : undefined;
    try {
      const outcome = await scope.run(() =>
        group === undefined ? this.#dispatch(call) : group.withScope(() => this.#dispatch(call)),
      );
      if (this.#previews !== undefined && outcome.preview !== undefined && !isLooped(call.input.definition))
        this.#previews[task] = outcome.preview;
      return outcome;
    } catch (error) {
      if (isCancellation(error)) {
        const asked = this.#state.tasks.cancelReason(task);
        if (asked !== undefined) return { cancelled: true, reason: asked };
        // Stopped in flight by the run's cancellation: its task ends cancelled, never done.
        return patched(CANCELLED_INSTANCE)
          ? { cancelled: true, reason: 'the run was cancelled', endsTask: true }
          : { cancelled: true, reason: 'cancelled' };
      }
      return failedBeforeOutput(call.label, failureMessage(error));
    }
  }

  async indexItems(input: Parameters<SwarmPort['indexItems']>[0]): ReturnType<SwarmPort['indexItems']> {
    try {
      return await indexItems.executeWithOptions(
        { summary: `${input.task} · index the items of ${input.source}` },
        [input],
      );
    } catch (error) {
      if (isCancellation(error)) throw error;
      return { error: `could not index loop.over ${input.source}: ${failureMessage(error)}` };
    }
  }

  writeManifestPart: SwarmPort['writeManifestPart'] = (input) => writeManifestPart(input);

  planContext: SwarmPort['planContext'] = (input) => planContext(input);

  pruneContext: SwarmPort['pruneContext'] = (input) => pruneContext(input);

  contextMetrics: SwarmPort['contextMetrics'] = (input, options = {}) =>
    contextMetrics.executeWithOptions(
      { ...localActivityOptions(), ...(options.summary === undefined ? {} : { summary: options.summary }) },
      [input],
    );

  /** The supervisor as a child `agentTaskWorkflow` `<swarm>/supervisor`, one activity per step. */
  async supervise(call: SupervisorCall): Promise<SuperviseResult> {
    try {
      const answer = await executeChild(agentTaskWorkflow, {
        workflowId: `${workflowInfo().workflowId}/supervisor`,
        staticSummary: call.summary,
        args: [call.input],
      });
      return answer.supervisor ?? { answer: '', evidenceBytes: 0, error: 'the supervisor gave no answer' };
    } catch (error) {
      if (isCancellation(error)) throw error;
      return { answer: '', evidenceBytes: 0, error: failureMessage(error) };
    }
  }

  async waitForChange(timeoutMs?: number): Promise<boolean> {
    const seen = this.#version;
    if (timeoutMs === undefined) {
      await condition(() => this.#version !== seen);
      return true;
    }
    return condition(() => this.#version !== seen, timeoutMs);
  }

  historyFull(): boolean {
    return this.shouldContinueAsNew() || workflowInfo().historySize >= SPLIT_HISTORY_BYTES;
  }

  shouldContinueAsNew(): boolean {
    const current = workflowInfo();
    return (
      current.continueAsNewSuggested || current.historyLength >= (this.#input.historyEventLimit ?? 10_000)
    );
  }

  publish(state: Readonly<SwarmState>): void {
    this.#visibility.publish(state);
  }

  warn(message: string, attributes: Record<string, unknown>): void {
    // A cancelled run's last steps fail as cancelled, as asked: nothing to warn about.
    if (CancellationScope.current().consideredCancelled) return;
    log.warn(message, attributes);
  }

  /**
   * A script runs as a `runSubagent` activity; an agent as an `agentTaskWorkflow` child, one
   * activity per model call and per tool call, so a worker that dies mid-task never pays again
   * for a finished model call.
   */
  async #dispatch(call: SubagentCall): Promise<SubagentResult> {
    const { agent } = call.input;
    if (call.input.definition.swarm !== undefined) return this.#runChildSwarm(call);
    // A loop's instances share their task's definition: it is stored once and named by ref. A
    // task without a loop is scheduled once, so it carries its own.
    if (agent === undefined)
      return runSubagent.executeWithOptions(call.options, [
        isLooped(call.input.definition) ? await this.#byRef(call.input) : call.input,
      ]);
    return executeChild(agentTaskWorkflow, {
      workflowId: agentWorkflowId(workflowInfo().workflowId, call.label),
      staticSummary: call.options.summary,
      args: [
        agentTaskInput(
          { ...call.input, agent },
          // The agents its `spawn_worker` tool may start.
          { heartbeatTimeoutMs: this.#input.heartbeatTimeoutMs, agents: this.#state.definition.agents },
        ),
      ],
    });
  }

  /**
   * A `swarm:` task runs its swarm as a child `swarmWorkflow` `<swarm>/swarm/<label>` (its own
   * history, continue-as-new and manifests) on this run's task queue, with its owner, data
   * plane, working directory and limits; its resolved `†` inputs and literal inputs are the
   * child's `†input`. On a re-run from a task inside it (`SwarmWorkflowInput.nestedRerun`), the
   * child is a re-run of the earlier child run, reusing what the plan says.
   * Cancelling the task (or the run) cancels the child and waits for it to end.
   * A child that fails throws: the task fails with its reason.
   */
  async #runChildSwarm(call: SubagentCall): Promise<SubagentResult> {
    const spec = call.input.definition;
    const child = childSwarm(spec);
    if (child === undefined)
      return failedBeforeOutput(
        call.label,
        `swarm ${spec.swarm ?? ''} was not loaded: start the swarm from its file (wharf run), whose loader attaches the swarms its tasks name`,
      );
    const input = this.#input;
    // A re-run from a task inside it re-runs the earlier child run (wharf rerun --from <task>.<inner>).
    const rerun = input.nestedRerun?.[call.input.task];
    const args: SwarmWorkflowInput = {
      definition: child,
      input: { ...spec.swarm_inputs, ...call.input.inputs },
      ownerId: call.input.ownerId,
      parent: { workflowId: call.input.workflowId, task: call.input.task },
      ...(input.historyEventLimit === undefined ? {} : { historyEventLimit: input.historyEventLimit }),
      ...(input.maxConcurrentTasks === undefined ? {} : { maxConcurrentTasks: input.maxConcurrentTasks }),
      ...(input.heartbeatTimeoutMs === undefined ? {} : { heartbeatTimeoutMs: input.heartbeatTimeoutMs }),
      ...(input.workdir === undefined ? {} : { workdir: input.workdir }),
      ...(input.contextPoolCap === undefined ? {} : { contextPoolCap: input.contextPoolCap }),
      ...(input.dataPlane === undefined ? {} : { dataPlane: input.dataPlane }),
      ...(rerun === undefined
        ? {}
        : {
            rerunOf: rerun.rerunOf,
            reuse: rerun.reuse,
            ...(rerun.nested === undefined ? {} : { nestedRerun: rerun.nested }),
          }),
    };
    const started = Date.now();
    const result: SwarmResult = await executeChild<(input: SwarmWorkflowInput) => Promise<SwarmResult>>(
      'swarmWorkflow',
      {
        workflowId: swarmTaskWorkflowId(workflowInfo().workflowId, call.label),
        staticSummary: call.options.summary,
        args: [args],
      },
    );
    return childSwarmResult(result, child, Date.now() - started);
  }

  /**
   * A loop instance's input with what its task's instances share stored once for the run
   * (a local activity, again only when that changes, e.g. a new context plan) and named by ref:
   * a map of 12,000 items schedules its task's definition once, not 12,000 times.
   */
  async #byRef(input: SubagentInput): Promise<SubagentRefInput> {
    const { definition, own } = splitSubagentInput(input);
    const json = JSON.stringify(definition);
    let stored = this.#definitions.get(input.task);
    if (stored?.json !== json) {
      const ref = storeSubagentDefinition({
        ownerId: own.ownerId,
        workflowId: own.workflowId,
        definition,
        ...(own.dataPlane === undefined ? {} : { dataPlane: own.dataPlane }),
      });
      stored = { json, ref };
      this.#definitions.set(input.task, stored);
      // A store that failed is asked again by the next instance.
      const current = stored;
      ref.catch(() => {
        if (this.#definitions.get(input.task) === current) this.#definitions.delete(input.task);
      });
    }
    return { ...own, definitionRef: await stored.ref };
  }
}
