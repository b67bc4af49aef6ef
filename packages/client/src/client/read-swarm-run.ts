import type { Client } from '@temporalio/client';
import {
  decodeFromPayloadsAtIndex,
  extstoreInboundOptions,
  visit,
  walkGetWorkflowExecutionHistoryResponse,
} from '@temporalio/common/lib/internal-non-workflow/index.js';
import type proto from '@temporalio/proto';
import type {
  AddInputsRequest,
  ReusedResults,
  SubagentInput,
  SubagentResult,
  SwarmResult,
  SwarmWorkflowInput,
} from '@wharf/swarm';
import { isReusedLoop, reusableWhole, WharfOrchestratorError } from '@wharf/swarm';
import { historyPooled, LastInstances } from './history-pooled.js';
import { swarmResultFromFailure } from './swarm-result-from-failure.js';

type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;
type Payloads = proto.temporal.api.common.v1.IPayload[] | null | undefined;

/** A finished swarm run as its history and result tell it, with no worker asked. */
export interface FinishedSwarmRun {
  workflowId: string;
  /** The input its first run started with (definition, `†input` values, options, data plane). */
  input: SwarmWorkflowInput;
  /** `†input.*` values as the run ended with them: the start input, then every value added. */
  inputs: Record<string, unknown>;
  /**
   * Its result. A loop it reused whole needs `pooled`, the outputs its context pool held for
   * the loop: a run that did not record them has them filled in from its history (see
   * {@link historyPooled}).
   */
  result: SwarmResult;
  /**
   * Per task, per instance: the result the run folded, read from its history (the subagent
   * activities and agent workflows that completed) and from the results it reused itself. Not
   * decoded nor kept for a loop a re-run would reuse whole (`reusableWhole`): its summary and
   * manifest are in `result`.
   */
  results: ReusedResults;
}

/**
 * Reads a finished swarm run from Temporal alone (no query, so no worker is needed): the
 * first run's input, the `†input.*` values added while it ran (the `addInputs` update, the
 * `addInput` signal), its result, and the result each task instance handed the fold, across its
 * continue-as-new chain. Payloads stored outside history (the client's External Storage) are
 * fetched back. A run still open, or one without a swarm result (terminated, cancelled), is a
 * typed error (code `INVALID_REQUEST`) saying so.
 *
 * @example
 * ```ts
 * const run = await readFinishedSwarmRun(wharf.client, 'repo-health-2026');
 * run.results.licences?.[0]?.outputs; // [{ outId: 'out_…' }]
 * ```
 */
export async function readFinishedSwarmRun(client: Client, workflowId: string): Promise<FinishedSwarmRun> {
  const description = await client.workflow.getHandle(workflowId).describe();
  if (description.status.name === 'RUNNING' || description.status.name === 'CONTINUED_AS_NEW')
    throw new WharfOrchestratorError(
      'INVALID_REQUEST',
      `${workflowId} is still running: re-run it once it has ended (or cancel it first)`,
    );
  const result = await client.workflow
    .getHandle(workflowId)
    .result()
    .then(
      (value) => value as SwarmResult,
      (error: unknown) => swarmResultFromFailure(error),
    );
  if (result === undefined)
    throw new WharfOrchestratorError(
      'INVALID_REQUEST',
      `${workflowId} ended ${description.status.name.toLowerCase()} without a swarm result: nothing to re-run from`,
    );
  const firstRunId = description.raw.workflowExecutionInfo?.firstRunId ?? description.runId;
  const reader = new HistoryReader(client);
  let input: SwarmWorkflowInput | undefined;
  const inputs: Record<string, unknown> = {};
  const results: ReusedResults = {};
  // Wide loops that ended with a manifest are reused whole: one result per instance is not kept.
  let whole = new Set<string>();
  // Of those the run's result gives no pooled outputs: the payloads of their last instances.
  const lastPayloads = new Map<string, LastInstances<Payloads>>();
  const record = (task: string, instance: number, value: SubagentResult) => {
    const list = results[task] ?? [];
    if (isReusedLoop(list)) return;
    list[instance] = value;
    results[task] = list;
  };
  for (let runId: string | undefined = firstRunId; runId !== undefined; ) {
    const events = await reader.events(workflowId, runId);
    const scheduled = new Map<string, { task: string; instance: number } | undefined>();
    runId = undefined;
    for (const event of events) {
      const started = event.workflowExecutionStartedEventAttributes;
      if (started !== undefined && started !== null && input === undefined) {
        input = await reader.decode<SwarmWorkflowInput>(started.input?.payloads);
        Object.assign(inputs, input.input ?? {});
        const { tasks } = input.definition;
        whole = new Set(
          result.tasks
            .filter(({ task, instances, manifest }) => {
              const spec = tasks[task];
              return spec !== undefined && manifest !== undefined && reusableWhole(spec, instances.total);
            })
            .map(({ task }) => task),
        );
        for (const { task, pooled } of result.tasks)
          if (whole.has(task) && pooled === undefined) lastPayloads.set(task, new LastInstances<Payloads>());
        // A re-run's own reused results count as what it folded (a loop it reused whole is in
        // its result, as its own: its summary and the earlier manifest).
        for (const [task, list] of Object.entries(input.reuse ?? {}))
          if (!isReusedLoop(list) && !whole.has(task))
            list.forEach((value, instance) => {
              record(task, instance, value);
            });
      }
      const activity = event.activityTaskScheduledEventAttributes;
      if (activity?.activityType?.name === 'runSubagent')
        scheduled.set(
          String(event.eventId),
          instanceOf(await reader.decode<SubagentInput>(activity.input?.payloads)),
        );
      const child = event.startChildWorkflowExecutionInitiatedEventAttributes;
      if (child?.workflowType?.name === 'agentTaskWorkflow') {
        const childInput = await reader.decode<SubagentInput & { supervisor?: unknown }>(
          child.input?.payloads,
        );
        scheduled.set(
          String(event.eventId),
          childInput.supervisor === undefined ? instanceOf(childInput) : undefined,
        );
      }
      const completed = event.activityTaskCompletedEventAttributes;
      const childCompleted = event.childWorkflowExecutionCompletedEventAttributes;
      const done =
        completed !== undefined && completed !== null
          ? { key: String(completed.scheduledEventId), result: completed.result }
          : childCompleted !== undefined && childCompleted !== null
            ? { key: String(childCompleted.initiatedEventId), result: childCompleted.result }
            : undefined;
      const instance = done === undefined ? undefined : scheduled.get(done.key);
      if (done !== undefined && instance !== undefined && !whole.has(instance.task))
        record(instance.task, instance.instance, await reader.decode<SubagentResult>(done.result?.payloads));
      else if (done !== undefined && instance !== undefined)
        lastPayloads.get(instance.task)?.add(instance.instance, done.result?.payloads);
      const update = event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input;
      if (update?.name === 'addInputs') {
        const request = await reader.decode<AddInputsRequest>(update.args?.payloads);
        Object.assign(inputs, request.values);
      }
      const signal = event.workflowExecutionSignaledEventAttributes;
      if (signal?.signalName === 'addInput') {
        const added = await reader.decode<{ key: string; value: unknown }>(signal.input?.payloads);
        inputs[added.key] = added.value;
      }
      const next = event.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
      if (typeof next === 'string' && next !== '') runId = next;
    }
  }
  if (input === undefined)
    throw new WharfOrchestratorError('INVALID_REQUEST', `${workflowId} has no start event in its history`);
  const tasks = await Promise.all(
    result.tasks.map(async (progress) => {
      const last = lastPayloads.get(progress.task);
      if (last === undefined || progress.endedAt === undefined) return progress;
      const pooled = await historyPooled(progress.task, last, progress.endedAt, (payloads) =>
        reader.decode<SubagentResult>(payloads),
      );
      return pooled.length === 0 ? progress : { ...progress, pooled, pooledCount: progress.instances.total };
    }),
  );
  return { workflowId, input, inputs, result: { ...result, tasks }, results };
}

/** A `runSubagent` activity's or an agent workflow's task and instance. */
function instanceOf(input: Pick<SubagentInput, 'task' | 'instance'>): { task: string; instance: number } {
  return { task: input.task, instance: input.instance };
}

/** Pages through a run's history and decodes its payloads as the client's data converter does. */
class HistoryReader {
  readonly #client: Client;

  constructor(client: Client) {
    this.#client = client;
  }

  async events(workflowId: string, runId: string): Promise<HistoryEvent[]> {
    const events: HistoryEvent[] = [];
    const { externalStorage } = this.#client.options.loadedDataConverter;
    let nextPageToken: Uint8Array | undefined;
    do {
      const response = await this.#client.workflowService.getWorkflowExecutionHistory({
        namespace: this.#client.options.namespace,
        execution: { workflowId, runId },
        ...(nextPageToken === undefined ? {} : { nextPageToken }),
      });
      // Payloads offloaded to External Storage come back as they were.
      await visit(response, walkGetWorkflowExecutionHistoryResponse, extstoreInboundOptions(externalStorage));
      events.push(...(response.history?.events ?? []));
      nextPageToken =
        response.nextPageToken !== null &&
        response.nextPageToken !== undefined &&
        response.nextPageToken.length > 0
          ? response.nextPageToken
          : undefined;
    } while (nextPageToken !== undefined);
    return events;
  }

  decode<TValue>(payloads: Payloads): Promise<TValue> {
    return decodeFromPayloadsAtIndex<TValue>(this.#client.options.loadedDataConverter, 0, payloads as never);
  }
}
