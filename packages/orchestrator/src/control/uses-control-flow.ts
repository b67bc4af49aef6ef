// Pure: whether a swarm definition uses any control-flow feature (and so asks its patch).
import type { SwarmDefinition } from '../dsl/swarm-schema.js';

/**
 * True when the definition uses `when:`, a map loop, `loop.max_concurrency` or an `approval:` gate.
 *
 * @example
 * ```ts
 * usesControlFlow(definition); // false for a swarm of plain tasks: its history stays as it was
 * ```
 */
export function usesControlFlow(definition: SwarmDefinition): boolean {
  return Object.values(definition.tasks).some(
    (task) =>
      task.when !== undefined ||
      task.approval !== undefined ||
      task.loop?.type === 'map' ||
      task.loop?.max_concurrency !== undefined,
  );
}
