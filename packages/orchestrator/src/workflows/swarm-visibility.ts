// What a swarm run shows outside its history: the Web UI's current details, its memo and its
// search attributes. Deterministic: reads only the SwarmRun it is given.
import { setCurrentDetails, upsertMemo, upsertSearchAttributes } from '@temporalio/workflow';
import { pendingApprovals, renderPendingApprovals } from '../control/approval-gate.js';
import { renderProgressTable } from '../shared/progress-table.js';
import { swarmSearchAttributes } from '../shared/search-attributes.js';
import type { SwarmProgress } from '../shared/types.js';
import type { SwarmRun } from '../swarm/swarm-run.js';

/**
 * Publishes a swarm run's progress: the details the Web UI shows, the `pendingApprovals` memo
 * (upserted only when the gates waiting change) and the swarm's status search attribute.
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
  /** The gates last written to the memo, comma-joined. */
  #memoApprovals = '';

  constructor(run: SwarmRun, workflowId: string) {
    this.#run = run;
    this.#workflowId = workflowId;
  }

  /** The first run of a chain names the swarm: its search attributes (running) and memo. */
  announce(ownerId: string): void {
    const { definition, taskNames } = this.#run;
    upsertSearchAttributes([
      { key: swarmSearchAttributes.swarm, value: definition.name },
      { key: swarmSearchAttributes.owner, value: ownerId },
      { key: swarmSearchAttributes.status, value: 'running' },
    ]);
    upsertMemo({ swarm: definition.name, version: definition.version, tasks: taskNames.length });
  }

  /** The Web UI's current details: the gates waiting (with the command that answers them), then the table. */
  publish(): void {
    const progress = this.#run.progress();
    const gates = pendingApprovals(progress);
    const waiting = renderPendingApprovals(gates, this.#workflowId);
    const table = renderProgressTable(progress);
    setCurrentDetails(waiting === '' ? table : `${waiting}\n\n${table}`);
    const names = gates.map((gate) => gate.task);
    if (names.join(',') !== this.#memoApprovals) {
      this.#memoApprovals = names.join(',');
      upsertMemo({ pendingApprovals: names });
    }
  }

  /** Sets the run's status and its search attribute. */
  setStatus(next: SwarmProgress['status']): void {
    this.#run.status = next;
    upsertSearchAttributes([{ key: swarmSearchAttributes.status, value: next }]);
  }
}
