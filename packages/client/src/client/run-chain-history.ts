import type { Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import proto from '@temporalio/proto';
import { billableActions } from './billable-actions.js';

const History = proto.temporal.api.history.v1.History;
const Payload = proto.temporal.api.common.v1.Payload;

/** History figures of one run of a continue-as-new chain. */
export interface RunHistoryStats {
  runId: string;
  /** Encoded size of the run's whole event history. */
  historyBytes: number;
  /** Size of the history as JSON, as `temporal workflow show --output json` writes it. */
  historyJsonBytes: number;
  events: number;
  /** Temporal Cloud actions the run's events show (see {@link billableActions}). */
  actions: number;
  /** Encoded size of the largest payload anywhere in the run's history. */
  largestPayloadBytes: number;
}

/**
 * Follows a workflow's continue-as-new chain from `firstRunId` and measures every run's
 * history: its encoded size and size as JSON, event count, billable actions and largest payload. For checking that a swarm
 * stays within Temporal's limits (4 MiB of history per run suggested, payloads well under
 * 2 MiB), in tests and benchmarks.
 *
 * @example
 * ```ts
 * const runs = await runChainHistory(wharf.client, workflowId, firstExecutionRunId);
 * console.log(Math.max(...runs.map((run) => run.historyBytes)));
 * ```
 */
export async function runChainHistory(
  client: Client,
  workflowId: string,
  firstRunId: string,
): Promise<RunHistoryStats[]> {
  const runs: RunHistoryStats[] = [];
  let runId: string | undefined = firstRunId;
  while (runId !== undefined) {
    const history: proto.temporal.api.history.v1.IHistory = await client.workflow
      .getHandle(workflowId, runId)
      .fetchHistory();
    const events = history.events ?? [];
    runs.push({
      runId,
      historyBytes: History.encode(history).finish().length,
      historyJsonBytes: Buffer.byteLength(historyToJSON(history as proto.temporal.api.history.v1.History)),
      events: events.length,
      actions: billableActions(events),
      largestPayloadBytes: largestPayload(history),
    });
    const last = events[events.length - 1];
    const next: string | null | undefined =
      last?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
    runId = next === null || next === undefined || next === '' ? undefined : next;
  }
  return runs;
}

/** Largest encoded payload in a decoded history (any object with `data` bytes and `metadata`). */
function largestPayload(value: unknown): number {
  let largest = 0;
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== 'object' || node instanceof Uint8Array) return;
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    const record = node as Record<string, unknown>;
    if (record.data instanceof Uint8Array && typeof record.metadata === 'object') {
      largest = Math.max(
        largest,
        Payload.encode(record as proto.temporal.api.common.v1.IPayload).finish().length,
      );
      return;
    }
    for (const child of Object.values(record)) visit(child);
  };
  visit(value);
  return largest;
}
