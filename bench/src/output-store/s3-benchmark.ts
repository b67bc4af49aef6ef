import { startS3Server } from '@wharf/output-store/testing';
import type { Benchmark } from '../benchmark.js';
import { formatTable } from '../harness.js';
import { s3Ingest } from './s3-ingest.js';
import { withTempDir } from './shared.js';

/**
 * The S3 half of the output-store benchmark, against a local versitygw it starts itself
 * (`WHARF_VERSITYGW`, or the one `.ci/toolchain.sh` builds): a streamed 50 MiB EMIT into
 * SqliteOutputStore + S3BlobStore vs a bare SDK upload of the same file, and vs the same
 * EMIT into the body directory. Smoke runs use 12 MiB (still three 5 MiB parts).
 */
export const outputStoreS3Benchmark: Benchmark = {
  name: 'output-store-s3',
  async run({ smoke }) {
    const sizes = smoke
      ? { bodyBytes: 12 << 20, partSizeBytes: 5 << 20, queueSize: 4, rounds: 1 }
      : { bodyBytes: 50 << 20, partSizeBytes: 8 << 20, queueSize: 4, rounds: 3 };
    const server = await startS3Server();
    try {
      const result = await withTempDir((directory) => s3Ingest(server, directory, sizes));
      return [
        formatTable('output-store on S3 (versitygw, loopback)', [result.row]),
        '',
        `same EMIT into the body directory: ${result.directoryMiBPerSecond.toFixed(1)} MiB/s; ` +
          `S3 / directory = ${(result.s3MiBPerSecond / result.directoryMiBPerSecond).toFixed(2)} ` +
          `(S3 adds the upload after the local spool; figure only, no target)`,
      ].join('\n');
    } finally {
      await server.stop();
    }
  },
};
