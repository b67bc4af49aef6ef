import { startPostgresServer } from '@wharf/output-store/testing';
import type { Benchmark } from '../benchmark.js';
import { formatRate, formatTable } from '../harness.js';
import { micros, withTempDir } from '../output-store/shared.js';
import { emitRows } from './emit-rows.js';
import { postgresGetLatency } from './get-latency.js';
import { postgresStoreSizes } from './sizes.js';

/**
 * Server settings of the benchmark's throwaway PostgreSQL: commits are not flushed one by
 * one (`synchronous_commit = off`), like the SQLite store's WAL with `synchronous = NORMAL`
 * it is compared with: a crashed client loses nothing committed, a crashed machine may lose
 * the last moments.
 */
const settings = { synchronous_commit: 'off' } as const;

/**
 * The PostgreSQL output-store benchmark: 1 KiB EMITs through PostgresOutputStore against bare
 * INSERTs on the same server and against SqliteOutputStore, and `get` latency on a store of
 * 100,000 records. Starts its own server with the test harness code (`startPostgresServer`).
 */
export const postgresStoreBenchmark: Benchmark = {
  name: 'output-store-postgres',
  async run({ smoke }) {
    const sizes = postgresStoreSizes(smoke);
    const server = await startPostgresServer({ settings });
    try {
      return await withTempDir(async (directory) => {
        const emits = await emitRows(server.url, directory, sizes);
        const get = await postgresGetLatency(server.url, directory, sizes);
        return [
          formatTable('output-store on PostgreSQL', [emits.vsInsert, emits.vsSqlite]),
          '',
          `server: ${server.version}, ${Object.entries(settings)
            .map(([name, value]) => `${name} = ${value}`)
            .join(', ')}, loopback TCP`,
          `get on ${get.records.toLocaleString('en-US')} records: p50 ${micros(get.ours.p50)}, p99 ${micros(get.ours.p99)}, ${formatRate(get.ours.opsPerSecond)} ops/s` +
            ` (raw SELECT p50 ${micros(get.raw.p50)}, p99 ${micros(get.raw.p99)}; filled in ${get.fillSeconds.toFixed(1)} s)`,
        ].join('\n');
      });
    } finally {
      await server.stop();
    }
  },
};
