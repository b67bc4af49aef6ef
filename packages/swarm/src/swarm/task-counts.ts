// Pure: how many of a swarm's tasks are done and how many failed, as its memo records them.
import type { TaskProgress } from '../contracts/progress-contracts.js';
import { isTaskFailure } from '../contracts/swarm-failure.js';

/** A swarm run's tasks counted: done, failed (or cancelled), and all of them. */
export interface TaskCounts {
  done: number;
  failed: number;
  total: number;
}

/**
 * Counts tasks by how they stand: `done`, failed (a failure or a cancellation, `isTaskFailure`),
 * and the total. What the memo's `taskCounts` holds, and `wharf list` shows.
 *
 * @example
 * ```ts
 * taskCounts([{ status: 'done' }, { status: 'failed' }, { status: 'running' }]); // { done: 1, failed: 1, total: 3 }
 * ```
 */
export function taskCounts(tasks: readonly Pick<TaskProgress, 'status'>[]): TaskCounts {
  return {
    done: tasks.filter((task) => task.status === 'done').length,
    failed: tasks.filter(isTaskFailure).length,
    total: tasks.length,
  };
}
