import { startPostgresServer, startS3Server } from '@wharf/output-store/testing';
import type { Benchmark } from '../benchmark.js';
import { type BenchRow, formatRate, formatTable } from '../harness.js';
import { dataPlaneGet } from './data-plane-get.js';
import { micros } from './shared.js';

/** Targets of `get` on the shared data plane, in µs (loopback: what the store adds, not the network). */
const targets = {
  inline: { p50: 1_000, p99: 5_000 },
  bucket: { p50: 20_000, p99: 60_000 },
} as const;

/** The p50 and p99 rows of one kind of read, in ms against their budgets. */
function latencyRows(
  label: string,
  summary: { p50: number; p99: number },
  target: { p50: number; p99: number },
): BenchRow[] {
  return [
    { name: `${label}, p50`, measured: summary.p50 / 1000, budget: target.p50 / 1000, unit: 'ms' },
    { name: `${label}, p99`, measured: summary.p99 / 1000, budget: target.p99 / 1000, unit: 'ms' },
  ];
}

/**
 * `get` latency on the data plane several hosts share, opened as a worker opens it
 * (`openDataPlane` with a `postgres://` store and `s3://` blobs) against a throwaway
 * PostgreSQL and a local versitygw: 100,000 records (256 B in the row, 1 in 500 a 100 KiB body
 * in the bucket), read on the host that wrote them and on a second one.
 */
export const outputStoreDataPlaneBenchmark: Benchmark = {
  name: 'output-store-data-plane',
  async run({ smoke }) {
    const sizes = smoke
      ? { records: 5_000, bucketRecords: 20, bucketBodyBytes: 100 * 1024, samples: 1_000 }
      : { records: 100_000, bucketRecords: 200, bucketBodyBytes: 100 * 1024, samples: 20_000 };
    const postgres = await startPostgresServer({ settings: { synchronous_commit: 'off' } });
    try {
      const s3 = await startS3Server();
      try {
        const result = await dataPlaneGet(postgres.url, s3, sizes);
        const bucketLabel = `${sizes.bucketBodyBytes / 1024} KiB in the bucket, other host`;
        const rate = (label: string, summary: typeof result.inline) =>
          `${label}: p50 ${micros(summary.p50)}, p99 ${micros(summary.p99)}, ${formatRate(summary.opsPerSecond)} ops/s`;
        return [
          formatTable(`get on ${result.records.toLocaleString('en-US')} records (latency vs budget)`, [
            ...latencyRows('256 B in the row, writing host', result.inline, targets.inline),
            ...latencyRows('256 B in the row, other host', result.otherHost, targets.inline),
            ...latencyRows(bucketLabel, result.bucket, targets.bucket),
          ]),
          `${postgres.version} + S3 (versitygw), loopback; filled in ${result.fillSeconds.toFixed(1)} s`,
          rate('256 B in the row, writing host', result.inline),
          rate('256 B in the row, other host', result.otherHost),
          rate(bucketLabel, result.bucket),
        ].join('\n');
      } finally {
        await s3.stop();
      }
    } finally {
      await postgres.stop();
    }
  },
};
