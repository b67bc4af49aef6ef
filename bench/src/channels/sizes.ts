/**
 * Workload sizes of the channels benchmark: full (`pnpm bench`) or smoke (CI, seconds).
 *
 * @example
 * ```ts
 * const sizes: ChannelBenchSizes = channelBenchSizes(false);
 * ```
 */
export interface ChannelBenchSizes {
  lastValueWrites: number;
  topicAppends: number;
  topicBatch: number;
  aggregateWrites: number;
  stateSteps: number;
  stateBranches: number;
  checkpointItems: number;
  /**
   * Checkpoint hops per timed round. Each hop writes the whole topic, which grows by a step's
   * items a hop: the items first, then hops × 10, so hops stay few next to the items.
   */
  checkpointHops: number;
  /** Timed rounds per measurement (the best one counts: the machine is shared). */
  rounds: number;
}

/**
 * The sizes the issue names (full) and tiny ones for smoke runs.
 *
 * @example
 * ```ts
 * const sizes = channelBenchSizes(true);
 * ```
 */
export function channelBenchSizes(smoke: boolean): ChannelBenchSizes {
  return smoke
    ? {
        // Large enough that a round lasts milliseconds, not microseconds: smaller rounds
        // measured timer and JIT noise and printed MISS on rows full runs pass.
        lastValueWrites: 100_000,
        topicAppends: 50_000,
        topicBatch: 10,
        aggregateWrites: 100_000,
        stateSteps: 10_000,
        stateBranches: 4,
        checkpointItems: 2_000,
        checkpointHops: 50,
        rounds: 3,
      }
    : {
        lastValueWrites: 1_000_000,
        topicAppends: 100_000,
        topicBatch: 10,
        aggregateWrites: 1_000_000,
        stateSteps: 25_000,
        stateBranches: 4,
        checkpointItems: 100_000,
        checkpointHops: 20,
        rounds: 9,
      };
}
