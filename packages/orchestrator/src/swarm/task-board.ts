// Pure: the status of every task of one swarm run. Runs inside the workflow sandbox.
import { WharfOrchestratorError } from '../orchestrator-error.js';
import { isFinished } from '../shared/task-status.js';
import type { ApprovalState, TaskProgress, TaskStatus } from '../shared/types.js';

/**
 * A task's own state. What it produced (out ids, bytes, instances done) is not here: the
 * swarm's `results:<task>` channel holds it.
 */
export interface TaskState {
  status: TaskStatus;
  /** Paths its inputs are still waiting for. */
  waitingFor: string[];
  /** Why it failed, was skipped or cancelled. */
  reason?: string;
  /** Workflow-clock milliseconds. */
  startedAt?: number;
  endedAt?: number;
  /** A map loop's instance count, once its list resolved. */
  total?: number;
  /** Its `approval:` gate, once opened or answered. */
  approval?: ApprovalState;
}

/**
 * The {@link TaskState} of every task of a swarm, in definition order: the one place task
 * status lives. Asking for a task the swarm does not have is a typed error, never `undefined`.
 *
 * @example
 * ```ts
 * const board = new TaskBoard(['fetch', 'report'], carried?.progress);
 * board.cancel('report', 'not needed', Date.now()); // { cancelled: true, status: 'cancelled' }
 * board.get('ghost'); // throws WharfOrchestratorError INVALID_REQUEST
 * ```
 */
export class TaskBoard {
  readonly names: readonly string[];
  readonly #tasks = new Map<string, TaskState>();

  /** Every task pending, or as `carried` left it (only its own fields are read). */
  constructor(names: readonly string[], carried: readonly TaskProgress[] = []) {
    this.names = names;
    const previous = new Map(carried.map((entry) => [entry.task, entry]));
    for (const task of names) this.#tasks.set(task, restoreTask(previous.get(task)));
  }

  has(task: string): boolean {
    return this.#tasks.has(task);
  }

  get(task: string): TaskState {
    const entry = this.#tasks.get(task);
    if (entry === undefined)
      throw new WharfOrchestratorError(
        'INVALID_REQUEST',
        `unknown task "${task}"; tasks: ${this.names.join(', ')}`,
      );
    return entry;
  }

  /** Tasks whose status is `status`. */
  count(status: TaskStatus): number {
    return this.names.filter((task) => this.get(task).status === status).length;
  }

  /**
   * Cancels a task that has not finished: it reads `cancelled` (with `reason`, or "cancelled by
   * request"). A finished task stays as it is.
   */
  cancel(task: string, reason: string | undefined, now: number): { cancelled: boolean; status: TaskStatus } {
    const entry = this.get(task);
    if (isFinished(entry.status)) return { cancelled: false, status: entry.status };
    entry.status = 'cancelled';
    entry.reason = reason ?? 'cancelled by request';
    entry.endedAt = now;
    return { cancelled: true, status: entry.status };
  }

  /** Why the task was cancelled, or `undefined` while it is not. */
  cancelReason(task: string): string | undefined {
    const entry = this.get(task);
    return entry.status === 'cancelled' ? (entry.reason ?? 'cancelled') : undefined;
  }

  /** True once every task has finished (done, failed, skipped or cancelled). */
  allFinished(): boolean {
    return this.names.every((task) => isFinished(this.get(task).status));
  }

  /** Fails every task still waiting for inputs, at `now`: nobody will write them. */
  failUnresolved(now: number): void {
    for (const entry of this.#tasks.values()) {
      if (entry.status !== 'waiting' && entry.status !== 'pending') continue;
      entry.status = 'failed';
      entry.reason = `inputs never resolved: ${entry.waitingFor.join(', ')}`;
      entry.endedAt = now;
    }
  }
}

/**
 * A task's state from what a previous run carried: its own fields only, since what it produced
 * is read from the restored results channel (Wharf has always written both, in step).
 */
function restoreTask(carried: TaskProgress | undefined): TaskState {
  if (carried === undefined) return { status: 'pending', waitingFor: [] };
  return {
    status: carried.status,
    waitingFor: [...carried.waitingFor],
    ...(carried.reason === undefined ? {} : { reason: carried.reason }),
    ...(carried.startedAt === undefined ? {} : { startedAt: carried.startedAt }),
    ...(carried.endedAt === undefined ? {} : { endedAt: carried.endedAt }),
    ...(carried.instances.total === undefined ? {} : { total: carried.instances.total }),
    ...(carried.approval === undefined ? {} : { approval: { ...carried.approval } }),
  };
}
