import {
  Client,
  type ClientPlugin,
  type ConnectionLike,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { encryptedDataConverter, type KeyRing, loadKeyRing } from '@wharf/codec';
import type {
  AddInputsResult,
  ApproveTaskResult,
  ApproveToolCallResult,
  DataPlaneIdentity,
  LiveInstance,
  RunEvent,
  SubagentHeartbeat,
  SwarmDefinition,
  SwarmProgress,
  SwarmResult,
  SwarmWorkflowInput,
} from '@wharf/swarm';
import {
  agentWorkflowId,
  MissingInputsError,
  missingInputs,
  nestedTask,
  type PendingApproval,
  parseSwarm,
  pendingApprovals,
  renderTaskTable,
  swarmTaskWorkflowId,
  WharfOrchestratorError,
} from '@wharf/swarm';
import {
  addInputsUpdate,
  approveTaskUpdate,
  approveToolCallUpdate,
  cancelTaskUpdate,
  newSwarmVisibility,
  progressQuery,
  stateQuery,
} from '@wharf/workflows';
import { followRunEvents, type RunEventsOptions } from '../events/follow-run-events.js';
import { readSwarmDefinition } from './read-swarm-definition.js';
import { type RerunHandle, type RerunOptions, rerunSwarm } from './rerun-swarm.js';
import type { StartSwarmOptions, SwarmHandle } from './start-swarm-options.js';
import { swarmResultFromFailure } from './swarm-result-from-failure.js';
import {
  connectTemporal,
  type LoadTemporalConfigOptions,
  loadTemporalConfig,
} from './temporal-connection.js';

/** Options of {@link WharfClient}: a connection to build its Temporal client on, or the client itself. */
export type WharfClientOptions = WharfClientSettings &
  (
    | {
        connection: ConnectionLike;
        namespace?: string;
        /** Use the same data converter as the workers (e.g. `createWharfDataConverter`). */
        dataConverter?: DataConverter;
        /**
         * Payload encryption, as the workers have it: its codec and failure converter replace
         * those of `dataConverter` (whose External Storage stays). Default none.
         */
        keyRing?: KeyRing | undefined;
        /** Client plugins, e.g. `wharfPlugin(…)` (its data converter, and with tracing its interceptors). */
        plugins?: ClientPlugin[];
      }
    | {
        /** A Temporal client of your own (built with `plugins: [wharfPlugin(…)]` to share the workers' converter). */
        client: Client;
      }
  );

/** What {@link WharfClient} takes besides its Temporal client. */
export interface WharfClientSettings {
  /** Task queue the Wharf workers poll. Default `wharf`. */
  taskQueue?: string;
  /**
   * Names of the tools registered with the workers, when known: YAML given to `startSwarm` is
   * parsed with them (`parseSwarm`'s `tools`), so an unknown tool is refused at its line.
   * Left out, names that are not Wharf's own are left to the worker's check.
   */
  tools?: readonly string[];
  /**
   * The data plane the swarms' outputs belong to (`openDataDir(…).dataPlane`, or the embedded
   * worker's): put in every swarm's input (and its memo), so a worker of another data plane
   * refuses its subagents instead of storing their outputs where the run never reads them.
   */
  dataPlane?: DataPlaneIdentity;
}

/** Options of {@link WharfClient.connect}. */
export interface ConnectWharfClientOptions extends LoadTemporalConfigOptions, WharfClientSettings {
  dataConverter?: DataConverter;
  /**
   * Payload encryption (see {@link WharfClientOptions}), or `false` for none. Default: what
   * `WHARF_CODEC_KEYS` / `WHARF_CODEC_KEYS_FILE` of `env` (else `process.env`) hold, else none.
   */
  keyRing?: KeyRing | false;
  plugins?: ClientPlugin[];
  /** How long to wait for the server. Default: Temporal's (10 s). */
  connectTimeoutMs?: number;
}

/**
 * Starts and follows swarms. Every swarm shows up in the Temporal Web UI with a summary,
 * a task table, live progress, and searchable `WharfSwarm`/`WharfOwner`/`WharfStatus`
 * attributes.
 *
 * @example
 * ```ts
 * const wharf = new WharfClient({ connection, taskQueue: 'wharf' });
 * const { workflowId } = await wharf.startSwarm(await readFile('swarm.yaml', 'utf8'));
 * console.log(await wharf.result(workflowId));
 * ```
 */
export class WharfClient {
  readonly client: Client;
  readonly taskQueue: string;
  /** Names of the workers' tools YAML is parsed with; undefined when not known. */
  readonly tools: readonly string[] | undefined;
  /** The data plane put in the swarms this client starts; undefined when not known. */
  readonly dataPlane: DataPlaneIdentity | undefined;

  constructor(options: WharfClientOptions) {
    const dataConverter =
      'client' in options ? undefined : withKeyRing(options.dataConverter, options.keyRing);
    this.client =
      'client' in options
        ? options.client
        : new Client({
            connection: options.connection,
            ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
            ...(dataConverter === undefined ? {} : { dataConverter }),
            ...(options.plugins === undefined ? {} : { plugins: options.plugins }),
          });
    this.taskQueue = options.taskQueue ?? 'wharf';
    this.tools = options.tools;
    this.dataPlane = options.dataPlane;
  }

  /**
   * Connects to the cluster Temporal's standard configuration names (`loadTemporalConfig`:
   * `TEMPORAL_ADDRESS`, `TEMPORAL_NAMESPACE`, `TEMPORAL_API_KEY`, TLS certificates, a
   * `TEMPORAL_PROFILE` of the config file; else a local server on 127.0.0.1:7233), encrypting
   * payloads when `WHARF_CODEC_KEYS` / `WHARF_CODEC_KEYS_FILE` hold a key ring. Close it with
   * `wharf.client.connection.close()`.
   *
   * @example
   * ```ts
   * const wharf = await WharfClient.connect(); // TEMPORAL_PROFILE=cloud, or TEMPORAL_API_KEY=…
   * const { workflowId } = await wharf.startSwarm(yamlText);
   * ```
   */
  static async connect(options: ConnectWharfClientOptions = {}): Promise<WharfClient> {
    const temporal = loadTemporalConfig(options);
    const keyRing =
      options.keyRing === undefined
        ? await loadKeyRing({ env: options.env ?? process.env })
        : options.keyRing || undefined;
    const connection = await connectTemporal(
      temporal,
      options.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: options.connectTimeoutMs },
    );
    return new WharfClient({
      connection,
      namespace: temporal.namespace,
      ...(options.dataConverter === undefined ? {} : { dataConverter: options.dataConverter }),
      ...(keyRing === undefined ? {} : { keyRing }),
      ...(options.plugins === undefined ? {} : { plugins: options.plugins }),
      ...(options.taskQueue === undefined ? {} : { taskQueue: options.taskQueue }),
      ...(options.tools === undefined ? {} : { tools: options.tools }),
    });
  }

  /**
   * Validates (YAML text or a definition) and starts a swarm. A swarm that reads `†input.*`
   * values `input` lacks is refused with a `MissingInputsError` (code `MISSING_INPUT`) naming
   * them, unless `waitForInputsMs` gives time to add them while it runs (`addInputs`).
   */
  async startSwarm(
    definition: SwarmDefinition | string,
    input: Record<string, unknown> = {},
    options: StartSwarmOptions = {},
  ): Promise<SwarmHandle> {
    const swarm =
      typeof definition === 'string'
        ? parseSwarm(definition, this.tools === undefined ? {} : { tools: this.tools })
        : definition;
    if ((options.waitForInputsMs ?? 0) <= 0) {
      const missing = missingInputs(swarm, input);
      if (missing.length > 0) throw new MissingInputsError(swarm.name, missing);
    }
    const ownerId = options.ownerId ?? 'default';
    const dataPlane = options.dataPlane ?? this.dataPlane;
    const { rerun } = options;
    const workflowId =
      options.workflowId ?? `${swarm.name}-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    const args: SwarmWorkflowInput = {
      definition: swarm,
      input,
      ownerId,
      ...(options.maxConcurrentTasks === undefined ? {} : { maxConcurrentTasks: options.maxConcurrentTasks }),
      ...(options.historyEventLimit === undefined ? {} : { historyEventLimit: options.historyEventLimit }),
      ...(options.waitForInputsMs === undefined ? {} : { waitForInputsMs: options.waitForInputsMs }),
      ...(options.contextPoolCap === undefined ? {} : { contextPoolCap: options.contextPoolCap }),
      ...(options.heartbeatTimeoutMs === undefined ? {} : { heartbeatTimeoutMs: options.heartbeatTimeoutMs }),
      ...(options.workdir === undefined ? {} : { workdir: options.workdir }),
      ...(dataPlane === undefined ? {} : { dataPlane }),
      ...(rerun === undefined ? {} : { rerunOf: rerun.of, reuse: rerun.reuse }),
      ...(rerun?.nested === undefined ? {} : { nestedRerun: rerun.nested }),
    };
    const taskCount = Object.keys(swarm.tasks).length;
    const visibility = newSwarmVisibility({ definition: swarm, ownerId, rerunOf: rerun?.of, dataPlane });
    const origin =
      rerun === undefined
        ? ''
        : `\n\nRe-run of \`${rerun.of.workflowId}\`${rerun.of.from === undefined ? ' with changed inputs' : ` from \`${rerun.of.from}\``}: ${Object.keys(rerun.reuse).length} task(s) reuse its results.`;
    const handle = await this.client.workflow.start('swarmWorkflow', {
      taskQueue: this.taskQueue,
      workflowId,
      args: [args],
      staticSummary: `Swarm ${swarm.name} v${swarm.version} · ${taskCount} task${taskCount === 1 ? '' : 's'}${swarm.supervisor ? ' · supervised' : ''}${rerun === undefined ? '' : ` · re-run of ${rerun.of.workflowId}`}`,
      staticDetails: `${renderTaskTable(swarm)}${origin}\n\n${afterTheRun(workflowId)}`,
      typedSearchAttributes: visibility.searchAttributes,
      memo: visibility.memo,
    });
    return { workflowId, firstExecutionRunId: handle.firstExecutionRunId, handle };
  }

  /**
   * Re-runs a finished swarm run from one of its tasks: a new run of the same definition (or
   * `options.definition`, an edited one) in which `options.from` and every task that depends on
   * it run again (without `options.from`, only what changed and what depends on it), and every other task reuses the results the run stored — folded as if it had
   * run, with no process and no model call, its out ids and bytes exactly those of the run.
   * Tasks that did not end `done`, whose definition changed or that read a changed `†input` value
   * run again too (`plan.rerun` says why for each). The run is read from Temporal alone (its
   * history and result), so it may have ended long ago with every worker gone. The new run
   * names it: search attribute `WharfRerunOf`, memo `rerunOf`.
   *
   * @example
   * ```ts
   * const { workflowId, plan } = await wharf.rerun('etl-2026', { from: 'report', inputs: { region: 'eu' } });
   * console.log(plan.reused, await wharf.result(workflowId));
   * await wharf.rerun('etl-2026', { inputs: { region: 'us' } }); // the tasks reading †input.region, and downstream
   * ```
   */
  rerun(workflowId: string, options: RerunOptions): Promise<RerunHandle> {
    return rerunSwarm(this, workflowId, options);
  }

  /**
   * The definition a swarm run runs, read from the start of its latest run's history alone (one
   * page of one event: no worker, no query): what a caller checks a re-run against before it
   * reads the whole run or starts anything.
   *
   * @example
   * ```ts
   * Object.keys((await wharf.definitionOf('etl-2026')).tasks); // ['fetch', 'clean', 'report']
   * ```
   */
  definitionOf(workflowId: string): Promise<SwarmDefinition> {
    return readSwarmDefinition(this.client, workflowId);
  }

  /**
   * Waits for the swarm's result (follows continue-as-new). A swarm whose tasks failed ends
   * its workflow failed (`WharfSwarmFailed`); its result, `status: 'failed'`, is returned all
   * the same. Any other failure (terminated, timed out, a bug) is thrown.
   */
  async result(workflowId: string): Promise<SwarmResult> {
    try {
      return (await this.client.workflow.getHandle(workflowId).result()) as SwarmResult;
    } catch (error) {
      const result = swarmResultFromFailure(error);
      if (result === undefined) throw error;
      return result;
    }
  }

  /**
   * The run's event stream (`wharf.events/v1`: tasks started, finished, failed; approvals
   * waiting and answered; the run started, continued as new, ended), followed as it happens
   * until the run ends or `options.signal` aborts. Derived from the run's Temporal history, so
   * `seq` numbers are the same for every reader: resume with `after` set to the last `seq` you
   * received and you get exactly the events after it (see `followRunEvents`).
   *
   * @example
   * ```ts
   * let last = 0;
   * for await (const event of wharf.events(workflowId, { after: last })) {
   *   last = event.seq;
   *   if (event.type === 'approval.waiting') console.log(`${event.task} waits for approval`);
   * }
   * ```
   */
  events(workflowId: string, options: RunEventsOptions = {}): AsyncGenerator<RunEvent, void, undefined> {
    return followRunEvents(this.client, workflowId, options);
  }

  /** The channel snapshot (refs and compact values only). */
  async state(workflowId: string): Promise<unknown> {
    return this.client.workflow.getHandle(workflowId).query(stateQuery);
  }

  /**
   * Per-task status, bytes and out ids. For running tasks, what their subagents report in
   * their heartbeats: bytes captured so far, and in {@link TaskProgress.live} each running
   * instance's agent step and tool calls. A running `swarm:` task's child swarm run is read
   * the same way into its `child` (its workflow id and progress, its own children's within):
   * its gates and held tool calls are the run's too (`pendingApprovals` names them
   * `<task>.<inner task>`), and a run that is `running` while one waits reads `waiting`.
   */
  async progress(workflowId: string): Promise<SwarmProgress> {
    const handle = this.client.workflow.getHandle(workflowId);
    const progress = await handle.query(progressQuery);
    const description = await handle.describe();
    const live = new Map<string, LiveInstance[]>();
    const pendingActivities = [...(description.raw.pendingActivities ?? [])];
    const swarms: string[] = [];
    // An agent task runs as a child workflow: its step activities heartbeat there.
    for (const child of description.raw.pendingChildren ?? []) {
      if (child.workflowTypeName === 'swarmWorkflow' && child.workflowId) swarms.push(child.workflowId);
      if (child.workflowTypeName !== 'agentTaskWorkflow' || !child.workflowId) continue;
      const agent = await this.client.workflow
        .getHandle(child.workflowId)
        .describe()
        .catch(() => undefined);
      pendingActivities.push(...(agent?.raw.pendingActivities ?? []));
    }
    for (const pending of pendingActivities) {
      const details = heartbeatOf(pending.heartbeatDetails?.payloads?.[0]?.data);
      if (details === undefined) continue;
      const instance: LiveInstance = {
        activity: pending.activityType?.name ?? 'activity',
        attempt: pending.attempt ?? 1,
        ...(details.instance === undefined ? {} : { instance: details.instance }),
        ...(details.bytes === undefined ? {} : { bytes: details.bytes }),
        ...(details.step === undefined ? {} : { step: details.step }),
        ...(details.toolCalls === undefined ? {} : { toolCalls: details.toolCalls }),
        ...(details.stream === undefined ? {} : { stream: details.stream }),
        ...(details.toolInputStream === undefined ? {} : { toolInputStream: details.toolInputStream }),
      };
      const list = live.get(details.task);
      if (list === undefined) live.set(details.task, [instance]);
      else list.push(instance);
    }
    for (const task of progress.tasks) {
      const instances = live.get(task.task);
      if (task.status !== 'running' || instances === undefined) continue;
      task.live = instances.sort((left, right) => (left.instance ?? 0) - (right.instance ?? 0));
      task.bytesCaptured += instances.reduce((sum, instance) => sum + (instance.bytes ?? 0), 0);
    }
    // A `swarm:` task's child run, read as this one is (a child no longer running is left out).
    for (const childId of swarms) {
      const task = progress.tasks.find(
        (entry) => entry.status === 'running' && swarmTaskWorkflowId(workflowId, entry.task) === childId,
      );
      if (task === undefined) continue;
      const child = await this.progress(childId).catch(() => undefined);
      if (child !== undefined) task.child = { workflowId: childId, ...child };
    }
    if (progress.status === 'running' && pendingApprovals(progress).length > 0) progress.status = 'waiting';
    return progress;
  }

  /**
   * Approves or rejects a task's `approval:` gate. An approved task runs at the swarm's next
   * step; a rejected one is skipped (or failed, with `on_reject: fail`), the comment recorded
   * as its reason. Throws `INVALID_REQUEST` naming the problem for an unknown task, a task
   * without a gate, a finished task or a gate already answered. `task` may name a gate inside a
   * `swarm:` task's child run, `<swarm task>.<inner task>` as `pendingApprovals` lists it: the
   * answer goes to that child's workflow (`<run>/swarm/<swarm task>`), refused as a top-level
   * one would be, or when that child does not run.
   *
   * @example
   * ```ts
   * await wharf.approveTask(workflowId, 'deploy', { approve: false, comment: 'not on a Friday' });
   * await wharf.approveTask(workflowId, 'notes.publish', { approve: true }); // a gate of the child run of notes
   * ```
   */
  async approveTask(
    workflowId: string,
    task: string,
    answer: { approve: boolean; comment?: string; by?: string },
  ): Promise<ApproveTaskResult> {
    // `notes.publish`: task publish of the child swarm run of the swarm: task notes.
    const target = innermostTask(workflowId, task);
    try {
      const result = await this.client.workflow
        .getHandle(target.workflowId)
        .executeUpdate(approveTaskUpdate, { args: [{ ...answer, task: target.task }] });
      return { ...result, task };
    } catch (error) {
      throw rejectedUpdate(
        error,
        `approveTask(${task})`,
        target.workflowId === workflowId ? undefined : target,
      );
    }
  }

  /**
   * Approves or rejects one tool call an agent task holds for a person (its agent's `tools` entry
   * says `approval`): `task` is the agent task's label as `pendingApprovals` lists it (`review`,
   * `review#2`, `supervisor`), `callId` the call's id. The answer goes to the agent workflow that
   * waits (found in the swarm's memo, else `<swarm>/agent/<task>`); an approved call runs, a
   * rejected one does not and the model gets the rejection, with the comment, as the tool's
   * result. Throws `INVALID_REQUEST` naming the problem when no such call waits or it was
   * already answered. A call held inside a `swarm:` task's child run is named as
   * `pendingApprovals` lists it, `<swarm task>.<agent task>`.
   *
   * @example
   * ```ts
   * await wharf.approveToolCall(workflowId, 'ops', 'call-0-0', { approve: false, comment: 'not on prod' });
   * ```
   */
  async approveToolCall(
    workflowId: string,
    task: string,
    callId: string,
    answer: { approve: boolean; comment?: string; by?: string },
  ): Promise<ApproveToolCallResult> {
    const target = await this.#heldCallWorkflow(workflowId, task, callId);
    try {
      return await this.client.workflow
        .getHandle(target)
        .executeUpdate(approveToolCallUpdate, { args: [{ callId, ...answer }] });
    } catch (error) {
      throw rejectedUpdate(error, `approveToolCall(${task}, ${callId})`);
    }
  }

  /**
   * The agent workflow that holds call `callId` of `task`: the one the run's memo names, else,
   * for `<swarm task>.<rest>` naming a child swarm run that exists, the one that child's names
   * for `<rest>`; else the agent task's own (`<run>/agent/<task>`, `<run>/supervisor`).
   */
  async #heldCallWorkflow(workflowId: string, task: string, callId: string): Promise<string> {
    const description = await this.client.workflow.getHandle(workflowId).describe();
    const held = Array.isArray(description.memo?.pendingToolCalls)
      ? (description.memo.pendingToolCalls as { task?: unknown; callId?: unknown; workflowId?: unknown }[])
      : [];
    const entry = held.find((call) => call.task === task && call.callId === callId);
    if (typeof entry?.workflowId === 'string') return entry.workflowId;
    // A spawned worker's label holds a dot too (`review.spawn-1`): a child run decides.
    const nested = nestedTask(workflowId, task);
    if (nested !== undefined) {
      const child = await this.client.workflow
        .getHandle(nested.workflowId)
        .describe()
        .catch(() => undefined);
      if (child?.type === 'swarmWorkflow')
        return this.#heldCallWorkflow(nested.workflowId, nested.task, callId);
    }
    return task === 'supervisor' ? `${workflowId}/supervisor` : agentWorkflowId(workflowId, task);
  }

  /**
   * The approval gates waiting for an answer, in task order, then the tool calls agent tasks hold,
   * then those of `swarm:` tasks' child runs, named `<task>.<inner task>` (see {@link progress}).
   *
   * @example
   * ```ts
   * for (const gate of await wharf.pendingApprovals(workflowId)) console.log(gate.task, gate.prompt);
   * ```
   */
  async pendingApprovals(workflowId: string): Promise<PendingApproval[]> {
    return pendingApprovals(await this.progress(workflowId));
  }

  /** Cancels one task; its dependents are skipped. */
  async cancelTask(
    workflowId: string,
    task: string,
    reason?: string,
  ): Promise<{ cancelled: boolean; status: string }> {
    try {
      return await this.client.workflow
        .getHandle(workflowId)
        .executeUpdate(cancelTaskUpdate, { args: [{ task, ...(reason === undefined ? {} : { reason }) }] });
    } catch (error) {
      throw rejectedUpdate(error, `cancelTask(${task})`);
    }
  }

  /**
   * Adds a value for `†input.<key>`; tasks waiting on it become ready. See {@link addInputs}:
   * a key that already holds a value is refused unless `replace`.
   */
  async addInput(
    workflowId: string,
    key: string,
    value: unknown,
    options: { replace?: boolean } = {},
  ): Promise<AddInputsResult> {
    return this.addInputs(workflowId, { [key]: value }, options);
  }

  /**
   * Adds several `†input.*` values at once (the `addInputs` update); tasks waiting on them
   * become ready. A key that already holds a value (given at start or added before) is refused
   * with an `INVALID_REQUEST` error naming it, and nothing is added, unless `replace: true`:
   * then tasks that start later read the new value (those that ran keep what they read).
   *
   * @example
   * ```ts
   * await wharf.addInputs(workflowId, { region: 'eu', replicas: 3 }); // { added: ['region', 'replicas'], replaced: [] }
   * await wharf.addInputs(workflowId, { region: 'us' }, { replace: true }); // { added: [], replaced: ['region'] }
   * ```
   */
  async addInputs(
    workflowId: string,
    values: Record<string, unknown>,
    options: { replace?: boolean } = {},
  ): Promise<AddInputsResult> {
    try {
      return await this.client.workflow.getHandle(workflowId).executeUpdate(addInputsUpdate, {
        args: [{ values, ...(options.replace === undefined ? {} : { replace: options.replace }) }],
      });
    } catch (error) {
      throw rejectedUpdate(error, 'addInputs');
    }
  }
}

/**
 * What the run page's static details say of a run that has ended: where its final table is, and
 * the commands that read it, with no worker running.
 */
function afterTheRun(workflowId: string): string {
  return [
    '**Once the run has ended**, with or without a worker:',
    '- the Memo tab holds `report`: every task, failures first with their reasons, and its out ids;',
    '- the last event of its history (*Local Activity*) shows the same report as its summary;',
    `- \`wharf status ${workflowId}\` prints the result, \`wharf outputs show <out id>\` reads an output,`,
    `  \`wharf rerun ${workflowId} --from <task>\` runs a task again, reusing what the others stored.`,
  ].join('\n');
}

/**
 * A rejected update (its validator threw) as an `INVALID_REQUEST` naming the reason; an update
 * to a child swarm run (`nested`) that does not run (not started yet, or ended) as one saying so;
 * else as it is.
 */
function rejectedUpdate(
  error: unknown,
  what: string,
  nested?: { workflowId: string; task: string },
): unknown {
  const cause = (error as { cause?: unknown }).cause;
  if (error instanceof WorkflowUpdateFailedError && cause instanceof Error) {
    return new WharfOrchestratorError('INVALID_REQUEST', `${what}: ${cause.message}`, { cause: error });
  }
  if (nested !== undefined && error instanceof WorkflowNotFoundError) {
    return new WharfOrchestratorError(
      'INVALID_REQUEST',
      `${what}: no swarm run ${nested.workflowId} runs to answer task "${nested.task}" (its swarm: task has not started, has ended, or is no swarm: task)`,
      { cause: error },
    );
  }
  return error;
}

/**
 * The run and task a name given to a run stands for: `<swarm task>.<inner task>` is the inner
 * task of that task's child swarm run (`nestedTask`), followed down each `.`; a plain name is
 * the run's own task.
 */
function innermostTask(workflowId: string, task: string): { workflowId: string; task: string } {
  const nested = nestedTask(workflowId, task);
  return nested === undefined ? { workflowId, task } : innermostTask(nested.workflowId, nested.task);
}

/** A subagent's heartbeat details (JSON payload data), or undefined in any other format. */
function heartbeatOf(data: Uint8Array | null | undefined): SubagentHeartbeat | undefined {
  if (data === undefined || data === null) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(data));
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const details = value as Record<string, unknown>;
  if (typeof details.task !== 'string') return undefined;
  const number = (key: string) => (typeof details[key] === 'number' ? (details[key] as number) : undefined);
  const instance = number('instance');
  const bytes = number('bytes');
  const step = number('step');
  const streamOf = (key: string) =>
    typeof details[key] === 'string' && /^str_[A-Za-z0-9_-]{22}$/.test(details[key])
      ? details[key]
      : undefined;
  const stream = streamOf('stream');
  const toolInputStream = streamOf('toolInputStream');
  const toolCalls = Array.isArray(details.toolCalls)
    ? details.toolCalls.filter((name): name is string => typeof name === 'string')
    : undefined;
  return {
    task: details.task,
    ...(instance === undefined ? {} : { instance }),
    ...(bytes === undefined ? {} : { bytes }),
    ...(step === undefined ? {} : { step }),
    ...(toolCalls === undefined ? {} : { toolCalls }),
    ...(stream === undefined ? {} : { stream }),
    ...(toolInputStream === undefined ? {} : { toolInputStream }),
  };
}

/** The converter with the key ring's codec and failure converter in place of its own, if a ring is given. */
function withKeyRing(
  dataConverter: DataConverter | undefined,
  keyRing: KeyRing | undefined,
): DataConverter | undefined {
  return keyRing === undefined ? dataConverter : { ...dataConverter, ...encryptedDataConverter({ keyRing }) };
}
