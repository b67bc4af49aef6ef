// Pure: how a task's definition says whether it runs as numbered instances, and what they are called.
import type { TaskDefinition } from '../contracts/swarm-schema.js';

/**
 * True when the task runs as instances `task#i`: a map loop (whatever its list's length, even
 * one item), or a repeat loop of more than one. Each instance is then a job of its own in the
 * stores and the Web UI.
 *
 * @example
 * ```ts
 * isLooped({ loop: { type: 'repeat', count: 3 } }); // true
 * isLooped({ loop: { type: 'repeat', count: 1 } }); // false
 * isLooped({}); // false
 * ```
 */
export function isLooped(task: Pick<TaskDefinition, 'loop'>): boolean {
  const loop = task.loop;
  return loop?.type === 'map' || (loop?.count ?? 1) > 1;
}

/**
 * The label of one run of a task: `task` without a loop, `task#i` for loop instance `i`.
 *
 * @example
 * ```ts
 * instanceLabel('scan', { loop: { type: 'repeat', count: 3 } }, 2); // 'scan#2'
 * instanceLabel('fetch', {}, 0); // 'fetch'
 * ```
 */
export function instanceLabel(task: string, spec: Pick<TaskDefinition, 'loop'>, instance: number): string {
  return isLooped(spec) ? `${task}#${instance}` : task;
}
