// What a swarm run shows outside its history: the Web UI's current details, its memo and its
// search attributes. Deterministic: reads only the SwarmRun it is given and the run's info.
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import { setCurrentDetails, upsertMemo, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { type PendingApproval, pendingApprovals, renderPendingApprovals } from '../control/approval-gate.js';
import { renderProgressTable } from '../shared/progress-table.js';
import { swarmSearchAttributes } from '../shared/search-attributes.js';
import type { RerunOrigin, SwarmProgress } from '../shared/types.js';
import type { SwarmRun } from '../swarm/swarm-run.js';

/**
 * Publishes a swarm run's progress: the details the Web UI shows, the memo of what waits for
 * a person (`pendingApprovals`: the gated tasks; `pendingToolCalls`: the held tool calls, with
 * the agent workflow each answer goes to), and the search attributes `WharfStatus` (`waiting`
 * while anything waits for a person) and `WharfPendingGates` (how many). Memo and attributes are
 * upserted only when they change; a continued run starts from what its predecessor left.
 *
 * @example
 * ```ts
 * const visibility = new SwarmVisibility(run, workflowId);
 * if (input.carried === undefined) visibility.announce(ownerId);
 * visibility.publish();
 * ```
 */
export class SwarmVisibility {
  readonly #run: SwarmRun;
  readonly #workflowId: string;
  /** What the memo says waits, as JSON: compared before each upsert. */
  #memoWaiting: string;
  /** What `WharfPendingGates` says. */
  #pendingCount: number;

  constructor(run: SwarmRun, workflowId: string) {
    this.#run = run;
    this.#workflowId = workflowId;
    const info = workflowInfo();
    this.#memoWaiting = JSON.stringify(waitingMemo(info.memo));
    this.#pendingCount = info.typedSearchAttributes.get(swarmSearchAttributes.pendingGates) ?? 0;
  }

  /**
   * The first run of a chain names the swarm: its search attributes (running; a re-run also
   * `WharfRerunOf`, so the run it re-runs lists its descendants) and memo.
   */
  announce(ownerId: string, rerunOf?: RerunOrigin): void {
    const { definition, taskNames } = this.#run;
    upsertSearchAttributes([
      { key: swarmSearchAttributes.swarm, value: definition.name },
      { key: swarmSearchAttributes.owner, value: ownerId },
      { key: swarmSearchAttributes.status, value: 'running' },
      { key: swarmSearchAttributes.pendingGates, value: 0 },
      ...(rerunOf === undefined ? [] : [{ key: swarmSearchAttributes.rerunOf, value: rerunOf.workflowId }]),
    ]);
    this.#pendingCount = 0;
    upsertMemo({
      swarm: definition.name,
      version: definition.version,
      tasks: taskNames.length,
      ...(rerunOf === undefined ? {} : { rerunOf }),
    });
  }

  /** The Web UI's current details (the gates and calls waiting, with the commands that answer them, then the table), memo and attributes. */
  publish(): void {
    const progress = this.#run.progress();
    const gates = pendingApprovals(progress);
    const waiting = renderPendingApprovals(gates, this.#workflowId);
    const table = renderProgressTable(progress);
    setCurrentDetails(waiting === '' ? table : `${waiting}\n\n${table}`);
    const memo = waitingOf(gates);
    const text = JSON.stringify(memo);
    if (text !== this.#memoWaiting) {
      this.#memoWaiting = text;
      upsertMemo(memo);
    }
    const updates: SearchAttributeUpdatePair[] = [];
    if (gates.length !== this.#pendingCount) {
      this.#pendingCount = gates.length;
      updates.push({ key: swarmSearchAttributes.pendingGates, value: gates.length });
    }
    const status = this.#run.status;
    if (status === 'running' || status === 'waiting') {
      const next = gates.length > 0 ? 'waiting' : 'running';
      if (next !== status) {
        this.#run.status = next;
        updates.push({ key: swarmSearchAttributes.status, value: next });
      }
    }
    if (updates.length > 0) upsertSearchAttributes(updates);
  }

  /** Sets the run's status and its search attribute. */
  setStatus(next: SwarmProgress['status']): void {
    this.#run.status = next;
    upsertSearchAttributes([{ key: swarmSearchAttributes.status, value: next }]);
  }
}

/** What the memo records of the gates and calls that wait. */
type WaitingMemo = {
  pendingApprovals: string[];
  pendingToolCalls: { task: string; callId: string; tool: string; arguments: string; workflowId: string }[];
};

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

/** The part of a memo {@link waitingOf} writes, as a continued run finds it (empty lists when absent). */
function waitingMemo(memo: Record<string, unknown> | undefined): WaitingMemo {
  const list = (value: unknown) => (Array.isArray(value) ? value : []);
  return {
    pendingApprovals: list(memo?.pendingApprovals) as string[],
    pendingToolCalls: list(memo?.pendingToolCalls) as WaitingMemo['pendingToolCalls'],
  };
}
