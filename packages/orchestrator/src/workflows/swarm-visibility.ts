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
 * const visibility = new SwarmVisibility(run, runId, controlFlow);
 * if (input.carried === undefined) visibility.announce(ownerId);
 * visibility.publish();
 * ```
 */
export class SwarmVisibility {
  readonly #run: SwarmRun;
  readonly #runId: string;
  readonly #controlFlow: boolean;
  /** The gates last written to the memo, comma-joined. */
  #memoApprovals = '';

  constructor(run: SwarmRun, runId: string, controlFlow: boolean) {
    this.#run = run;
    this.#runId = runId;
    this.#controlFlow = controlFlow;
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
    const gates = this.#controlFlow ? pendingApprovals(progress) : [];
    const waiting = renderPendingApprovals(gates, this.#runId);
    const table = renderProgressTable(progress);
    setCurrentDetails(waiting === '' ? table : `${waiting}\n\n${table}`);
    const names = gates.map((gate) => gate.task);
    if (this.#controlFlow && names.join(',') !== this.#memoApprovals) {
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
