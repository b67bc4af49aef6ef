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
        lastValueWrites: 10_000,
        topicAppends: 1_000,
        topicBatch: 10,
        aggregateWrites: 10_000,
        stateSteps: 200,
        stateBranches: 4,
        checkpointItems: 1_000,
        rounds: 2,
      }
    : {
        lastValueWrites: 1_000_000,
        topicAppends: 100_000,
        topicBatch: 10,
        aggregateWrites: 1_000_000,
        stateSteps: 25_000,
        stateBranches: 4,
        checkpointItems: 100_000,
        rounds: 9,
      };
}
