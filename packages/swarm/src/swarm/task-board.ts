// Pure: the state of every task of one swarm run, changed only through nextTaskState. Runs
// inside the workflow sandbox.

import type { TaskState, TaskStatus } from '../contracts/progress-contracts.js';
import { isFinished } from '../contracts/task-status.js';
import { WharfOrchestratorError } from '../orchestrator-error.js';
import { nextTaskState, PENDING_TASK, type TaskEvent } from './task-state.js';

/**
 * The typed error for a task the swarm does not have, naming the tasks it has.
 *
 * @example
 * ```ts
 * unknownTaskError('ghost', ['fetch', 'report']).message; // 'unknown task "ghost"; tasks: fetch, report'
 * ```
 */
export function unknownTaskError(task: string, tasks: readonly string[]): WharfOrchestratorError {
  return new WharfOrchestratorError('INVALID_REQUEST', `unknown task "${task}"; tasks: ${tasks.join(', ')}`);
}

/**
 * The {@link TaskState} of every task of a swarm, in definition order: the one place task
 * status lives and the one writer of it. Every change is a {@link TaskEvent} applied through
 * `nextTaskState`; readers get frozen copies. Asking for a task the swarm does not have is a
 * typed error, never `undefined`.
 *
 * @example
 * ```ts
 * const board = new TaskBoard(['fetch', 'report'], carried?.tasks);
 * board.apply('report', { type: 'cancel', reason: 'not needed' }, Date.now()); // status 'cancelled'
 * board.get('ghost'); // throws WharfOrchestratorError INVALID_REQUEST
 * ```
 */
export class TaskBoard {
  readonly names: readonly string[];
  readonly #tasks = new Map<string, Readonly<TaskState>>();

  /** Every task pending, or as a previous run of the chain left it. */
  constructor(names: readonly string[], carried: Readonly<Record<string, TaskState>> = {}) {
    this.names = names;
    for (const task of names) this.#tasks.set(task, Object.freeze({ ...(carried[task] ?? PENDING_TASK) }));
  }

  has(task: string): boolean {
    return this.#tasks.has(task);
  }

  get(task: string): Readonly<TaskState> {
    const entry = this.#tasks.get(task);
    if (entry === undefined) throw unknownTaskError(task, this.names);
    return entry;
  }

  /** Applies `event` to the task at `now` and returns its new state (see `nextTaskState`). */
  apply(task: string, event: TaskEvent, now: number): Readonly<TaskState> {
    const next = Object.freeze(nextTaskState(task, this.get(task), event, now));
    this.#tasks.set(task, next);
    return next;
  }

  /** Throws the error `event` would throw, and changes nothing: an update's validator. */
  check(task: string, event: TaskEvent, now: number): void {
    nextTaskState(task, this.get(task), event, now);
  }

  /** Tasks whose status is `status`. */
  count(status: TaskStatus): number {
    return this.names.filter((task) => this.get(task).status === status).length;
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

  /** Every task's state, for continue-as-new. */
  snapshot(): Record<string, TaskState> {
    const tasks: Record<string, TaskState> = {};
    for (const task of this.names) tasks[task] = { ...this.get(task) };
    return tasks;
  }
}
