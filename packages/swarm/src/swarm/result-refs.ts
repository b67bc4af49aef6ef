// Pure: how the results of finished tasks are handed on by reference — a task's IN_REFS, and
// the manifests the supervisor reads a wide loop's outputs from.
import { type SwarmState, taskResults, taskSpec } from './swarm-state.js';

/**
 * What a task's dependencies give it as IN_REFS: the out ids of those that list them all, the
 * manifests of loops with more (the worker reads their out ids from the store).
 *
 * @example
 * ```ts
 * inputRefs(state, 'report'); // { refs: ['out_fetch'], manifests: ['out_manifest_fan'] }
 * ```
 */
export function inputRefs(state: SwarmState, task: string): { refs: string[]; manifests: string[] } {
  const refs: string[] = [];
  const manifests: string[] = [];
  for (const dependency of taskSpec(state, task).depends_on) {
    const results = taskResults(state, dependency);
    if (results.outIds.length === results.outCount) refs.push(...results.outIds);
    else if (results.manifest !== undefined) manifests.push(results.manifest);
  }
  return { refs, manifests };
}

/**
 * The manifests of the loops whose out ids are not all listed inline (more than 64 outputs):
 * the supervisor, shown only a few of their compacts, reads the rest from these.
 *
 * @example
 * ```ts
 * loopManifests(state); // ['out_manifest_fan']
 * ```
 */
export function loopManifests(state: SwarmState): string[] {
  const manifests: string[] = [];
  for (const task of state.taskNames) {
    const results = taskResults(state, task);
    if (results.manifest !== undefined && results.outIds.length < results.outCount)
      manifests.push(results.manifest);
  }
  return manifests;
}
