import { childSwarm, type SwarmDefinition } from '@wharf/orchestrator';

/**
 * The tasks of a swarm with an `approval:` gate, in task order, then those of the swarms its
 * `swarm:` tasks run (the loader attached them), named `<swarm task>.<inner task>` as
 * `wharf approve <run>` takes them.
 *
 * @example
 * ```ts
 * gatedTasks(definition); // ['deploy', 'notes.publish']
 * ```
 */
export function gatedTasks(definition: SwarmDefinition): string[] {
  const entries = Object.entries(definition.tasks);
  return [
    ...entries.filter(([, task]) => task.approval !== undefined).map(([name]) => name),
    ...entries.flatMap(([name, task]) => {
      const child = childSwarm(task);
      return child === undefined ? [] : gatedTasks(child).map((inner) => `${name}.${inner}`);
    }),
  ];
}
