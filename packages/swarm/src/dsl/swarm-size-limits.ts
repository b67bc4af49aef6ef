/**
 * How big a swarm definition may be before Wharf refuses to parse or check it. Every check
 * is linear in these sizes; the limits keep a hostile or broken file from using unbounded
 * memory or time.
 */
export interface SwarmSizeLimits {
  /** Bytes of YAML text (UTF-8). */
  maxBytes: number;
  /** Number of tasks. */
  maxTasks: number;
  /** Nodes that YAML aliases (`*name`) may copy in all, against alias bombs. */
  maxAliasNodes: number;
  /**
   * Levels of YAML collections (mappings, sequences) nested in one another; deeper text is
   * refused before it is composed (a definition needs fewer than ten).
   */
  maxDepth: number;
}

/**
 * The default {@link SwarmSizeLimits}: 4 MiB of YAML, 20,000 tasks, 10,000 nodes copied by
 * aliases, collections 64 deep. Pass `sizeLimits` to `parseSwarm` / `validateSwarm` to change them.
 *
 * @example
 * ```ts
 * parseSwarm(text, { sizeLimits: { maxTasks: defaultSwarmSizeLimits.maxTasks * 2 } });
 * ```
 */
export const defaultSwarmSizeLimits: Readonly<SwarmSizeLimits> = Object.freeze({
  maxBytes: 4 * 1024 * 1024,
  maxTasks: 20_000,
  maxAliasNodes: 10_000,
  maxDepth: 64,
});
