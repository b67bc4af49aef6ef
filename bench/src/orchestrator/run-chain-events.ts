import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';

type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;

/** One run of a continue-as-new chain: its events and its encoded history's size. */
export interface RunEvents {
  runId: string;
  events: HistoryEvent[];
  historyBytes: number;
}

/**
 * The events of every run of a workflow's continue-as-new chain, first run first.
 *
 * @example
 * ```ts
 * const runs = await runChainEvents(client, workflowId, firstExecutionRunId);
 * historyActions(runs.map((run) => run.events));
 * ```
 */
export async function runChainEvents(
  client: Client,
  workflowId: string,
  firstRunId: string,
): Promise<RunEvents[]> {
  const runs: RunEvents[] = [];
  let runId: string | undefined = firstRunId;
  while (runId !== undefined) {
    const history: proto.temporal.api.history.v1.IHistory = await client.workflow
      .getHandle(workflowId, runId)
      .fetchHistory();
    const events: HistoryEvent[] = history.events ?? [];
    runs.push({
      runId,
      events,
      historyBytes: proto.temporal.api.history.v1.History.encode(history).finish().length,
    });
    const next: string | null | undefined =
      events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
    runId = next === null || next === undefined || next === '' ? undefined : next;
  }
  return runs;
}
