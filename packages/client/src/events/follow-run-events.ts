import type { Client } from '@temporalio/client';
import {
  decodeFromPayloadsAtIndex,
  extstoreInboundOptions,
  visit,
  walkGetWorkflowExecutionHistoryResponse,
} from '@temporalio/common/lib/internal-non-workflow/index.js';
import type proto from '@temporalio/proto';
import { RUN_EVENTS_SCHEMA, type RunEvent } from '@wharf/swarm';
import { RunEventMapper } from './run-event-mapper.js';

type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;

/** Options of {@link followRunEvents} and `WharfClient.events`. */
export interface RunEventsOptions {
  /** Resume after this sequence number (the last `seq` a reader received). Default 0: from the start. */
  after?: number;
  /** Ends the stream (the iterator returns) when aborted. */
  signal?: AbortSignal;
  /** Wait for new events until the run ends (default); `false` stops at the end of the history so far. */
  follow?: boolean;
}

/**
 * A swarm run's event stream (`wharf.events/v1`, see `runEventSchema`), derived from its
 * Temporal history: every run of its continue-as-new chain from the first, read with the
 * history long poll (`waitNewEvent`) so that events come as the server records them, until the
 * run ends. Events are numbered from 1 in history order, so `seq` is a pure function of the
 * history (the server's, not a worker's): a reader that resumes with `after: n` gets exactly the
 * events after n — no gap, no duplicate — whatever happened to the workers or to the reader.
 * Resuming reads the chain's history again from its start and skips what the reader had.
 *
 * @example
 * ```ts
 * for await (const event of followRunEvents(wharf.client, workflowId, { after: lastSeq })) {
 *   lastSeq = event.seq;
 *   console.log(event.type, 'task' in event ? event.task : '');
 * }
 * ```
 */
export async function* followRunEvents(
  client: Client,
  workflowId: string,
  options: RunEventsOptions = {},
): AsyncGenerator<RunEvent, void, undefined> {
  const { signal } = options;
  const after = options.after ?? 0;
  const follow = options.follow ?? true;
  const call = <T>(fn: () => Promise<T>): Promise<T> =>
    signal === undefined ? fn() : client.withAbortSignal(signal, fn);
  if (signal?.aborted) return;
  const description = await call(() => client.workflow.getHandle(workflowId).describe());
  const converter = client.options.loadedDataConverter;
  const mapper = new RunEventMapper(
    workflowId,
    (payload) => decodeFromPayloadsAtIndex(converter, 0, [payload] as never),
    // An ended agent task's own history, whole: it is final by then.
    (childId, childRunId) => chainHistory(client, childId, childRunId, { follow: false, call }),
  );
  let seq = 0;
  const firstRunId = description.raw.workflowExecutionInfo?.firstRunId ?? description.runId;
  try {
    for await (const { runId, event } of chainHistory(client, workflowId, firstRunId, { follow, call })) {
      for (const derived of await mapper.map(runId, event)) {
        seq += 1;
        if (seq > after) yield { schema: RUN_EVENTS_SCHEMA, seq, ...derived } as RunEvent;
        if (signal?.aborted) return;
      }
    }
  } catch (error) {
    if (signal?.aborted) return;
    throw error;
  }
}

/**
 * Every event of a workflow's history from run `runId` on, following its continue-as-new chain
 * (with `follow`, waiting for new events until the chain ends), External Storage payloads
 * brought back.
 */
async function* chainHistory(
  client: Client,
  workflowId: string,
  runId: string,
  options: { follow: boolean; call: <T>(fn: () => Promise<T>) => Promise<T> },
): AsyncGenerator<{ runId: string; event: HistoryEvent }> {
  const converter = client.options.loadedDataConverter;
  let next: string | undefined = runId;
  while (next !== undefined) {
    const current: string = next;
    next = undefined;
    let nextPageToken: Uint8Array | undefined;
    for (;;) {
      const response = await options.call(() =>
        client.workflowService.getWorkflowExecutionHistory({
          namespace: client.options.namespace,
          execution: { workflowId, runId: current },
          waitNewEvent: options.follow,
          skipArchival: true,
          ...(nextPageToken === undefined ? {} : { nextPageToken }),
        }),
      );
      // Payloads offloaded to External Storage come back as they were.
      await visit(
        response,
        walkGetWorkflowExecutionHistoryResponse,
        extstoreInboundOptions(converter.externalStorage),
      );
      for (const event of response.history?.events ?? []) {
        yield { runId: current, event };
        const continued = event.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
        if (typeof continued === 'string' && continued !== '') next = continued;
      }
      const token = response.nextPageToken;
      if (token === null || token === undefined || token.length === 0) break;
      nextPageToken = token;
    }
  }
}
