import type { Benchmark } from '../benchmark.js';
import { formatRate, formatTable } from '../harness.js';
import { emitThroughput } from './emit-throughput.js';
import { getLatency } from './get-latency.js';
import { httpIntake } from './http-intake.js';
import { micros } from './shared.js';
import { outputStoreSizes } from './sizes.js';
import { streamIngest } from './stream-ingest.js';

/**
 * The output-store benchmark: EMIT throughput vs raw SQLite inserts, large-body ingest vs a
 * file copy (with peak RSS growth), HTTP intake vs a bare node:http server, and `get`
 * latency on a big store.
 */
export const outputStoreBenchmark: Benchmark = {
  name: 'output-store',
  async run({ smoke }) {
    const sizes = outputStoreSizes(smoke);
    const ingest = await streamIngest(sizes);
    const emits = await emitThroughput(sizes);
    const http = await httpIntake(sizes);
    const get = await getLatency(sizes);
    const coldMiB = ingest.coldRssGrowthBytes / 2 ** 20;
    const warmMiB = ingest.peakRssGrowthBytes / 2 ** 20;
    return [
      formatTable('output-store', [
        emits,
        ingest.row,
        {
          name: 'ingest peak RSS growth (cold and warm round, the larger)',
          measured: Math.max(coldMiB, warmMiB),
          budget: 64,
          unit: 'MiB',
        },
        ...http.rows.map((intake) => intake.row),
      ]),
      '',
      `ingest peak RSS growth: cold round ${coldMiB.toFixed(1)} MiB, warm round ${warmMiB.toFixed(1)} MiB`,
      ...http.rows.map(
        (intake, index) =>
          `intake latency p50/p99 (${index === 0 ? 'a token per POST' : 'shared spawn tokens'}): ${intake.ours.p50.toFixed(2)} / ${intake.ours.p99.toFixed(2)} ms, CPU ${micros(intake.ours.cpuMicros)} per request (bare node:http ${intake.baseline.p50.toFixed(2)} / ${intake.baseline.p99.toFixed(2)} ms, ${micros(intake.baseline.cpuMicros)})`,
      ),
      `get on ${get.records.toLocaleString('en-US')} records: p50 ${micros(get.ours.p50)}, p99 ${micros(get.ours.p99)}, ${formatRate(get.ours.opsPerSecond)} ops/s` +
        ` (raw SELECT p50 ${micros(get.raw.p50)}, p99 ${micros(get.raw.p99)}; filled in ${get.fillSeconds.toFixed(1)} s)`,
    ].join('\n');
  },
};
