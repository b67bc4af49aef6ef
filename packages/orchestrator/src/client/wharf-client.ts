import {
  Client,
  type ConnectionLike,
  type WorkflowHandle,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { parseSwarm } from '../dsl/parse-swarm.js';
import type { SwarmDefinition } from '../dsl/swarm-schema.js';
import { WharfOrchestratorError } from '../orchestrator-error.js';
import { addInputSignal, cancelTaskUpdate, progressQuery, stateQuery } from '../shared/definitions.js';
import { renderTaskTable } from '../shared/progress-table.js';
import { swarmSearchAttributes } from '../shared/search-attributes.js';
import type { SwarmProgress, SwarmResult, SwarmWorkflowInput } from '../shared/types.js';
import { swarmResultFromFailure } from './swarm-result-from-failure.js';

/** Options of {@link WharfClient}. */
export interface WharfClientOptions {
  connection: ConnectionLike;
  /** Task queue the Wharf workers poll. Default `wharf`. */
  taskQueue?: string;
  namespace?: string;
  /** Use the same data converter as the workers (e.g. `createWharfDataConverter`). */
  dataConverter?: DataConverter;
}

/** Options of {@link WharfClient.startSwarm}. */
export interface StartSwarmOptions {
  /** Default: `<swarm name>-<timestamp>`. */
  workflowId?: string;
  ownerId?: string;
  maxConcurrentTasks?: number;
  historyEventLimit?: number;
  waitForInputsMs?: number;
  heartbeatTimeoutMs?: number;
  /** Directory scripts run in on the workers (e.g. the repository a swarm checks). */
  workdir?: string;
}

/** A started swarm. */
export interface SwarmHandle {
  readonly workflowId: string;
  readonly firstExecutionRunId: string;
  /** The raw Temporal handle. */
  readonly handle: WorkflowHandle;
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

  constructor(options: WharfClientOptions) {
    this.client = new Client({
      connection: options.connection,
      ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
      ...(options.dataConverter === undefined ? {} : { dataConverter: options.dataConverter }),
    });
    this.taskQueue = options.taskQueue ?? 'wharf';
  }

  /** Validates (YAML text or a definition) and starts a swarm. */
  async startSwarm(
    definition: SwarmDefinition | string,
    input: Record<string, unknown> = {},
    options: StartSwarmOptions = {},
  ): Promise<SwarmHandle> {
    const swarm = typeof definition === 'string' ? parseSwarm(definition) : definition;
    const ownerId = options.ownerId ?? 'default';
    const workflowId =
      options.workflowId ?? `${swarm.name}-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    const args: SwarmWorkflowInput = {
      definition: swarm,
      input,
      ownerId,
      ...(options.maxConcurrentTasks === undefined ? {} : { maxConcurrentTasks: options.maxConcurrentTasks }),
      ...(options.historyEventLimit === undefined ? {} : { historyEventLimit: options.historyEventLimit }),
      ...(options.waitForInputsMs === undefined ? {} : { waitForInputsMs: options.waitForInputsMs }),
      ...(options.heartbeatTimeoutMs === undefined ? {} : { heartbeatTimeoutMs: options.heartbeatTimeoutMs }),
      ...(options.workdir === undefined ? {} : { workdir: options.workdir }),
    };
    const taskCount = Object.keys(swarm.tasks).length;
    const handle = await this.client.workflow.start('swarmWorkflow', {
      taskQueue: this.taskQueue,
      workflowId,
      args: [args],
      staticSummary: `Swarm ${swarm.name} v${swarm.version} · ${taskCount} task${taskCount === 1 ? '' : 's'}${swarm.supervisor ? ' · supervised' : ''}`,
      staticDetails: renderTaskTable(swarm),
      typedSearchAttributes: [
        { key: swarmSearchAttributes.swarm, value: swarm.name },
        { key: swarmSearchAttributes.owner, value: ownerId },
        { key: swarmSearchAttributes.status, value: 'running' },
      ],
      memo: { swarm: swarm.name, version: swarm.version, tasks: taskCount },
    });
    return { workflowId, firstExecutionRunId: handle.firstExecutionRunId, handle };
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

  /** The channel snapshot (refs and compact values only). */
  async state(workflowId: string): Promise<unknown> {
    return this.client.workflow.getHandle(workflowId).query(stateQuery);
  }

  /** Per-task status, bytes and out ids; running tasks' bytes come from activity heartbeats. */
  async progress(workflowId: string): Promise<SwarmProgress> {
    const handle = this.client.workflow.getHandle(workflowId);
    const progress = await handle.query(progressQuery);
    const description = await handle.describe();
    const live = new Map<string, number>();
    for (const pending of description.raw.pendingActivities ?? []) {
      const summary =
        pending.activityType?.name === 'runSubagent' ? pending.heartbeatDetails?.payloads?.[0] : undefined;
      if (summary?.data === undefined || summary.data === null) continue;
      try {
        const details = JSON.parse(new TextDecoder().decode(summary.data)) as {
          task?: string;
          bytes?: number;
        };
        if (typeof details.task === 'string' && typeof details.bytes === 'number') {
          live.set(details.task, (live.get(details.task) ?? 0) + details.bytes);
        }
      } catch {
        // heartbeat details in another format: ignore
      }
    }
    for (const task of progress.tasks) {
      const bytes = live.get(task.task);
      if (task.status === 'running' && bytes !== undefined) task.bytesCaptured += bytes;
    }
    return progress;
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
      // A rejected update (unknown task) carries the validator's message as its cause.
      const cause = (error as { cause?: unknown }).cause;
      if (error instanceof WorkflowUpdateFailedError && cause instanceof Error) {
        throw new WharfOrchestratorError('INVALID_REQUEST', `cancelTask(${task}): ${cause.message}`, {
          cause: error,
        });
      }
      throw error;
    }
  }

  /** Adds a value for `†input.<key>`. */
  async addInput(workflowId: string, key: string, value: unknown): Promise<void> {
    await this.client.workflow.getHandle(workflowId).signal(addInputSignal, { key, value });
  }
}
