import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { SqliteOutputStore } from '@wharf/output-store';
import type { BenchRow } from '../harness.js';
import { withTempDir } from './shared.js';
import type { OutputStoreSizes } from './sizes.js';

/** Result of benchmark 2: the throughput row and our peak RSS growth while ingesting. */
export interface StreamIngestResult {
  row: BenchRow;
  peakRssGrowthBytes: number;
  /** The same on the first, cold round (includes one-time start-up allocations). */
  coldRssGrowthBytes: number;
}

async function writeSource(path: string, bytes: number): Promise<void> {
  const handle = await open(path, 'w');
  const block = randomBytes(1 << 20);
  try {
    for (let written = 0; written < bytes; written += block.length) {
      block.writeUInt32LE(written, 0);
      await handle.write(block, 0, Math.min(block.length, bytes - written));
    }
  } finally {
    await handle.close();
  }
}

async function copyWithFsync(source: string, target: string): Promise<void> {
  await pipeline(createReadStream(source, { highWaterMark: 1 << 20 }), createWriteStream(target));
  const handle = await open(target, 'r+');
  await handle.sync();
  await handle.close();
}

/**
 * Benchmark 2: bodies streamed into SqliteOutputStore (copied in from files under an allowed
 * root, hashed, fsynced, renamed) vs a plain streamed file copy with fsync of the same bytes.
 */
export async function streamIngest(sizes: OutputStoreSizes): Promise<StreamIngestResult> {
  return withTempDir(async (directory) => {
    const sourceDir = join(directory, 'sources');
    await mkdir(sourceDir);
    const sources: string[] = [];
    for (let index = 0; index < sizes.streamBodies; index++) {
      const path = join(sourceDir, `body-${index}.bin`);
      await writeSource(path, sizes.streamBodyBytes);
      sources.push(path);
    }
    const totalBytes = sizes.streamBodies * sizes.streamBodyBytes;
    let bestOurs = Number.POSITIVE_INFINITY;
    let bestBaseline = Number.POSITIVE_INFINITY;
    let peakRssGrowthBytes = 0;
    let coldRssGrowthBytes = 0;
    for (let round = 0; round < 2; round++) {
      const storeDir = join(directory, `store-${round}`);
      const store = new SqliteOutputStore({ path: join(storeDir, 'outputs.db'), allowedRoots: [sourceDir] });
      const startRss = process.memoryUsage().rss;
      let peak = startRss;
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().rss);
      }, 10);
      const started = process.hrtime.bigint();
      for (const [index, path] of sources.entries()) {
        await store.emit({
          producer: { ownerId: 'bench', runId: 'bench', spawnId: 'bench' },
          content: { kind: 'file', path },
          idempotencyKey: `body-${index}`,
        });
      }
      bestOurs = Math.min(bestOurs, Number(process.hrtime.bigint() - started) / 1e9);
      clearInterval(sampler);
      peak = Math.max(peak, process.memoryUsage().rss);
      // Round 0 is cold (first SQLite open, hashing, fs thread pool); round 1 is warm.
      if (round === 0) coldRssGrowthBytes = peak - startRss;
      else peakRssGrowthBytes = peak - startRss;
      await store.close();
      await rm(storeDir, { recursive: true, force: true });

      const copyDir = join(directory, `copy-${round}`);
      await mkdir(copyDir);
      const copyStarted = process.hrtime.bigint();
      for (const [index, path] of sources.entries())
        await copyWithFsync(path, join(copyDir, `copy-${index}.bin`));
      bestBaseline = Math.min(bestBaseline, Number(process.hrtime.bigint() - copyStarted) / 1e9);
      await rm(copyDir, { recursive: true, force: true });
    }
    const mib = totalBytes / 2 ** 20;
    return {
      row: {
        name: `ingest ${sizes.streamBodies} x ${sizes.streamBodyBytes >> 20} MiB (MiB/s) vs copy+fsync`,
        ours: mib / bestOurs,
        baseline: mib / bestBaseline,
        target: 0.5,
      },
      peakRssGrowthBytes,
      coldRssGrowthBytes,
    };
  });
}
