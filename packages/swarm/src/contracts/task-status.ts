// Workflow-safe: what each task status means, defined once for the workflow, the client and the CLI.
import type { TaskStatus } from './progress-contracts.js';

/** Statuses a task never leaves: done, failed, skipped, cancelled. */
export const FINISHED_TASK_STATUSES: ReadonlySet<TaskStatus> = new Set([
  'done',
  'failed',
  'skipped',
  'cancelled',
]);

/**
 * True once the task has finished, well or not: done, failed, skipped or cancelled.
 *
 * @example
 * ```ts
 * isFinished('skipped'); // true
 * isFinished('waiting'); // false
 * ```
 */
export function isFinished(status: TaskStatus): boolean {
  return FINISHED_TASK_STATUSES.has(status);
}

/**
 * True while the task has not started: pending, or waiting (for inputs, a condition, a gate).
 *
 * @example
 * ```ts
 * isOpen('waiting'); // true
 * isOpen('running'); // false
 * ```
 */
export function isOpen(status: TaskStatus): boolean {
  return status === 'pending' || status === 'waiting';
}

/**
 * True for a task that failed or was cancelled: what reports list first, with its reason. A
 * skipped task (an untaken branch, a dependent of a failure) is not a failure of its own.
 *
 * @example
 * ```ts
 * isFailure('cancelled'); // true
 * isFailure('skipped'); // false
 * ```
 */
export function isFailure(status: TaskStatus): boolean {
  return status === 'failed' || status === 'cancelled';
}
