import type { Benchmark } from '../benchmark.js';
import { formatTable } from '../harness.js';
import { channelLevelRows } from './channel-level.js';
import { checkpointRows } from './checkpoint.js';
import { checkpointSerdeRows } from './checkpoint-serde.js';
import { readCostNotes, readIsolationRows } from './read-cost.js';
import { channelBenchSizes } from './sizes.js';
import { stateLevelRows } from './state-level.js';

/**
 * `@wharf/channels` against `@langchain/langgraph/channels` in the same process: channel
 * folds, state-level superstep folding, checkpoint round trips, and the cost of read isolation.
 *
 * @example
 * ```ts
 * console.log(await channelsBenchmark.run({ smoke: true }));
 * ```
 */
export const channelsBenchmark: Benchmark = {
  name: 'channels',
  async run({ smoke }) {
    const sizes = channelBenchSizes(smoke);
    const channelLevel = await channelLevelRows(sizes);
    const stateLevel = await stateLevelRows(sizes);
    const checkpoints = await checkpointRows(sizes);
    const rows = [
      ...channelLevel,
      ...stateLevel,
      ...checkpoints.rows,
      ...(await checkpointSerdeRows(sizes)),
      ...(await readIsolationRows(sizes, smoke)),
    ];
    const table = formatTable(
      'channels: @wharf/channels vs @langchain/langgraph/channels (ratio = ours / theirs)',
      rows,
    );
    return [table, ...checkpoints.notes, '', await readCostNotes(smoke)].join('\n');
  },
};
