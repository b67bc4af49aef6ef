import type { Benchmark } from '../benchmark.js';
import { type BenchRow, formatRate, formatTable } from '../harness.js';
import { emitThroughput } from './emit-throughput.js';
import { getLatency } from './get-latency.js';
import { httpIntake } from './http-intake.js';
import { micros } from './shared.js';
import { intakeWriterThread, outputStoreParts, outputStoreSizes } from './sizes.js';
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
    const parts = outputStoreParts(process.env.WHARF_BENCH_OUTPUT_STORE_ROWS);
    const ingest = parts.has('ingest') ? await streamIngest(sizes) : undefined;
    const emits = parts.has('emit') ? await emitThroughput(sizes) : undefined;
    const writerThread = intakeWriterThread(process.env.WHARF_BENCH_INTAKE_WRITER_THREAD);
    const http = parts.has('intake') ? await httpIntake(sizes, writerThread) : undefined;
    const get = parts.has('get') ? await getLatency(sizes) : undefined;
    const rows: BenchRow[] = [];
    const notes: string[] = [];
    if (emits) rows.push(emits);
    if (ingest) {
      const coldMiB = ingest.coldRssGrowthBytes / 2 ** 20;
      const warmMiB = ingest.peakRssGrowthBytes / 2 ** 20;
      rows.push(ingest.row, {
        name: 'ingest peak RSS growth (cold and warm round, the larger)',
        measured: Math.max(coldMiB, warmMiB),
        budget: 64,
        unit: 'MiB',
      });
      notes.push(
        `ingest peak RSS growth: cold round ${coldMiB.toFixed(1)} MiB, warm round ${warmMiB.toFixed(1)} MiB`,
      );
    }
    if (http) {
      rows.push(...http.rows.map((intake) => intake.row));
      notes.push(
        `intake store: SQLite, writerThread ${writerThread} (WHARF_BENCH_INTAKE_WRITER_THREAD=${writerThread ? 1 : 0})`,
        ...http.rows.map(
          (intake, index) =>
            `intake latency p50/p99 (${index === 0 ? 'a token per POST' : 'shared spawn tokens'}): ${intake.ours.p50.toFixed(2)} / ${intake.ours.p99.toFixed(2)} ms, CPU ${micros(intake.ours.cpuMicros)} per request, main thread ${micros(intake.ours.mainThreadMicros)} (bare node:http ${intake.baseline.p50.toFixed(2)} / ${intake.baseline.p99.toFixed(2)} ms, ${micros(intake.baseline.cpuMicros)}, main thread ${micros(intake.baseline.mainThreadMicros)})`,
        ),
      );
    }
    if (get)
      notes.push(
        `get on ${get.records.toLocaleString('en-US')} records: p50 ${micros(get.ours.p50)}, p99 ${micros(get.ours.p99)}, ${formatRate(get.ours.opsPerSecond)} ops/s` +
          ` (raw SELECT p50 ${micros(get.raw.p50)}, p99 ${micros(get.raw.p99)}; filled in ${get.fillSeconds.toFixed(1)} s)`,
      );
    return [formatTable('output-store', rows), '', ...notes].join('\n');
  },
};
