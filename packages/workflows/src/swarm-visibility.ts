// What a swarm run shows outside its history: the Web UI's current details, its memo and its
// search attributes. Deterministic: what is shown is a pure function of the state
// (visibleProgress, newSwarmVisibility); this publisher only remembers what Temporal already
// has, so it upserts only what changed, and never changes the state.
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import {
  patched,
  setCurrentDetails,
  upsertMemo,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { RerunOrigin, SwarmProgress, SwarmState } from '@wharf/swarm';
import { visibleProgress, waitingMemo } from '@wharf/swarm';
import { newSwarmVisibility } from './new-swarm-visibility.js';
import { swarmSearchAttributes } from './search-attributes.js';

/**
 * The patch behind the memo's `taskCounts` (the tasks done and failed: while the run goes, at its
 * end and at a cancellation): a run whose history began without it upserts its memo as before.
 */
export const MEMO_TASK_COUNTS = 'wharf-memo-task-counts';

/**
 * Publishes a swarm run's progress as its state says it (`visibleProgress`): the details the
 * Web UI shows, the memo of what waits for a person, and the search attributes `WharfStatus`
 * and `WharfPendingGates`. Memo and attributes are upserted only when they change; a phase of
 * the swarm (`supervising`, `completed`, `failed`) is upserted on its own, before the rest. A
 * continued run starts from what its predecessor left.
 *
 * @example
 * ```ts
 * const visibility = new SwarmVisibility(workflowId);
 * if (input.carried === undefined) visibility.announce(definition, ownerId);
 * visibility.publish(state);
 * ```
 */
export class SwarmVisibility {
  readonly #workflowId: string;
  /** What the memo says waits, as JSON: compared before each upsert. */
  #memoWaiting: string;
  /** What `WharfPendingGates` says. */
  #pendingCount: number;
  /** What `WharfStatus` was last set to by this run (every run starts `running`). */
  #status: SwarmProgress['status'] = 'running';

  constructor(workflowId: string) {
    this.#workflowId = workflowId;
    const info = workflowInfo();
    this.#memoWaiting = JSON.stringify(waitingMemo(info.memo));
    this.#pendingCount = info.typedSearchAttributes.get(swarmSearchAttributes.pendingGates) ?? 0;
  }

  /**
   * The first run of a chain names the swarm: the search attributes and memo of a new swarm
   * (`newSwarmVisibility`, the rule the client starts it with).
   */
  announce(definition: SwarmState['definition'], ownerId: string, rerunOf?: RerunOrigin): void {
    const { searchAttributes, memo } = newSwarmVisibility({ definition, ownerId, rerunOf });
    upsertSearchAttributes(searchAttributes);
    this.#pendingCount = 0;
    upsertMemo(memo);
  }

  /** The Web UI's current details (the gates and calls waiting, with the commands that answer them, then the table), memo and attributes. */
  publish(state: Readonly<SwarmState>): void {
    const shown = visibleProgress(state, this.#workflowId);
    const running = shown.status === 'running' || shown.status === 'waiting';
    if (!running && shown.status !== this.#status) {
      this.#status = shown.status;
      upsertSearchAttributes([{ key: swarmSearchAttributes.status, value: shown.status }]);
    }
    setCurrentDetails(shown.details);
    // The tasks done and failed so far too (`wharf list`), in runs that started with them.
    const memo = patched(MEMO_TASK_COUNTS) ? { ...shown.memo, taskCounts: shown.counts } : shown.memo;
    const text = JSON.stringify(memo);
    if (text !== this.#memoWaiting) {
      this.#memoWaiting = text;
      upsertMemo(memo);
    }
    const updates: SearchAttributeUpdatePair[] = [];
    if (shown.pendingGates !== this.#pendingCount) {
      this.#pendingCount = shown.pendingGates;
      updates.push({ key: swarmSearchAttributes.pendingGates, value: shown.pendingGates });
    }
    if (running && shown.status !== this.#status) {
      this.#status = shown.status;
      updates.push({ key: swarmSearchAttributes.status, value: shown.status });
    }
    if (updates.length > 0) upsertSearchAttributes(updates);
  }
}
