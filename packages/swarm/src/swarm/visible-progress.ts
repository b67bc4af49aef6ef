// Pure: what a swarm run shows outside its history at one moment — the Web UI's current
// details, the memo of what waits for a person, and the values of its `WharfStatus` and
// `WharfPendingGates` search attributes — read from its state and nothing else.
import {
  type PendingApproval,
  pendingApprovals,
  renderPendingApprovals,
} from '../approvals/approval-gate.js';
import type { SwarmProgress } from '../contracts/progress-contracts.js';
import { renderProgressTable } from '../report/progress-table.js';
import { swarmProgress } from './swarm-report.js';
import type { SwarmState } from './swarm-state.js';
import { type TaskCounts, taskCounts } from './task-counts.js';

/** What the memo records of the gates and calls that wait. */
export type WaitingMemo = {
  pendingApprovals: string[];
  pendingToolCalls: { task: string; callId: string; tool: string; arguments: string; workflowId: string }[];
};

/** A swarm run's visibility at one moment. */
export interface VisibleProgress {
  /** The Web UI's current details: what waits, with the commands that answer it, then the task table. */
  details: string;
  /** The memo's `pendingApprovals` (gated tasks) and `pendingToolCalls` (with the agent workflow each answer goes to). */
  memo: WaitingMemo;
  /** `WharfStatus`: the swarm's status, `waiting` while it runs and something waits for a person. */
  status: SwarmProgress['status'];
  /** `WharfPendingGates`: how many gates and held tool calls wait. */
  pendingGates: number;
  /** The tasks done and failed so far (the memo's `taskCounts`). */
  counts: TaskCounts;
}

/**
 * What a swarm run shows of its progress (see {@link VisibleProgress}); `workflowId` goes into
 * the commands that answer what waits.
 *
 * @example
 * ```ts
 * const shown = visibleProgress(state, 'release-2026');
 * setCurrentDetails(shown.details);
 * ```
 */
export function visibleProgress(state: SwarmState, workflowId: string): VisibleProgress {
  const progress = swarmProgress(state);
  const gates = pendingApprovals(progress);
  const waiting = renderPendingApprovals(gates, workflowId);
  const table = renderProgressTable(progress);
  return {
    details: waiting === '' ? table : `${waiting}\n\n${table}`,
    memo: waitingOf(gates),
    status: progress.status,
    pendingGates: gates.length,
    counts: taskCounts(progress.tasks),
  };
}

/**
 * The part of a memo {@link visibleProgress} writes, as a continued run finds it (empty lists
 * when absent).
 *
 * @example
 * ```ts
 * waitingMemo(workflowInfo().memo); // { pendingApprovals: [], pendingToolCalls: [] }
 * ```
 */
export function waitingMemo(memo: Record<string, unknown> | undefined): WaitingMemo {
  const list = (value: unknown) => (Array.isArray(value) ? value : []);
  return {
    pendingApprovals: list(memo?.pendingApprovals) as string[],
    pendingToolCalls: list(memo?.pendingToolCalls) as WaitingMemo['pendingToolCalls'],
  };
}

function waitingOf(gates: readonly PendingApproval[]): WaitingMemo {
  return {
    pendingApprovals: gates.filter((gate) => gate.call === undefined).map((gate) => gate.task),
    pendingToolCalls: gates.flatMap((gate) =>
      gate.call === undefined
        ? []
        : [
            {
              task: gate.task,
              callId: gate.call.id,
              tool: gate.call.tool,
              arguments: gate.call.arguments,
              workflowId: gate.call.workflowId,
            },
          ],
    ),
  };
}
