import { join } from 'node:path';
import { SqliteOutputStore } from '@wharf/output-store';
import Database from 'better-sqlite3';
import { summarise, withTempDir } from './shared.js';
import type { OutputStoreSizes } from './sizes.js';

/** Result of benchmark 4: `get` latency quantiles on a big store, with a raw SELECT for scale. */
export interface GetLatencyResult {
  records: number;
  fillSeconds: number;
  ours: { p50: number; p99: number; opsPerSecond: number };
  raw: { p50: number; p99: number; opsPerSecond: number };
}

/** Benchmark 4: `get` (record + 256 B body) on a store holding N records. */
export async function getLatency(sizes: OutputStoreSizes): Promise<GetLatencyResult> {
  return withTempDir(async (directory) => {
    const path = join(directory, 'big.db');
    const store = new SqliteOutputStore({ path });
    const body = 'g'.repeat(256);
    const ids: string[] = [];
    const filled = process.hrtime.bigint();
    // Filled by concurrent emits in groups: the store commits each group in one transaction.
    for (let first = 0; first < sizes.getRecords; first += 1000) {
      const group = Array.from({ length: Math.min(1000, sizes.getRecords - first) }, (_, offset) => {
        const index = first + offset;
        const producer = { ownerId: 'bench', runId: `run-${index % 1000}`, spawnId: `spawn-${index}` };
        return store.emit({
          producer,
          content: { kind: 'text', text: `${index}${body}` },
          idempotencyKey: `fill-${index}`,
        });
      });
      for (const ref of await Promise.all(group)) ids.push(ref.outId);
    }
    const fillSeconds = Number(process.hrtime.bigint() - filled) / 1e9;
    const picks = Array.from(
      { length: sizes.getSamples },
      (_, index) => ids[(index * 7919 + 13) % ids.length] ?? '',
    );

    const samples: number[] = [];
    let started = process.hrtime.bigint();
    for (const outId of picks) {
      const sent = process.hrtime.bigint();
      await store.get({ outId });
      samples.push(Number(process.hrtime.bigint() - sent) / 1e3);
    }
    const ours = summarise(samples, Number(process.hrtime.bigint() - started) / 1e9);
    await store.close();

    const raw = new Database(path, { readonly: true });
    const select = raw.prepare('SELECT * FROM outputs WHERE out_id = ?');
    const rawSamples: number[] = [];
    started = process.hrtime.bigint();
    for (const outId of picks) {
      const sent = process.hrtime.bigint();
      select.get(outId);
      rawSamples.push(Number(process.hrtime.bigint() - sent) / 1e3);
    }
    const rawSummary = summarise(rawSamples, Number(process.hrtime.bigint() - started) / 1e9);
    raw.close();
    return { records: sizes.getRecords, fillSeconds, ours, raw: rawSummary };
  });
}
