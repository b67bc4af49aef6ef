import { join } from 'node:path';
import { LocalBlobStore } from '@wharf/output-store';
import { PostgresOutputStore } from '@wharf/output-store/postgres';
import pg from 'pg';
import { summarise } from '../output-store/shared.js';
import type { PostgresStoreSizes } from './sizes.js';

/** Latency quantiles (µs) and rate of one side. */
export interface LatencySummary {
  p50: number;
  p99: number;
  opsPerSecond: number;
}

/** `get` latency on a big PostgreSQL store, with a raw `SELECT` for scale. */
export interface PostgresGetLatency {
  records: number;
  fillSeconds: number;
  ours: LatencySummary;
  raw: LatencySummary;
}

/**
 * Fills a store with N records (256 B bodies, concurrent EMITs in groups of 500 over the
 * pool), then times sequential `get`s of spread-out refs, and the same rows read with a
 * prepared `SELECT * … WHERE out_id = $1` on one connection.
 */
export async function postgresGetLatency(
  url: string,
  directory: string,
  sizes: PostgresStoreSizes,
): Promise<PostgresGetLatency> {
  const blobs = new LocalBlobStore({ root: join(directory, 'get-blobs') });
  const store = await PostgresOutputStore.open({ connectionString: url, schema: 'bench_get', blobs });
  const raw = new pg.Client({ connectionString: url });
  await raw.connect();
  try {
    const body = 'g'.repeat(256);
    const ids: string[] = [];
    const filled = process.hrtime.bigint();
    for (let first = 0; first < sizes.getRecords; first += 500) {
      const group = Array.from({ length: Math.min(500, sizes.getRecords - first) }, (_, offset) => {
        const index = first + offset;
        return store.emit({
          producer: { ownerId: 'bench', runId: `run-${index % 1000}`, spawnId: `spawn-${index}` },
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
    for (const outId of picks.slice(0, 200)) await store.get({ outId });

    const samples: number[] = [];
    let started = process.hrtime.bigint();
    for (const outId of picks) {
      const sent = process.hrtime.bigint();
      await store.get({ outId });
      samples.push(Number(process.hrtime.bigint() - sent) / 1e3);
    }
    const ours = summarise(samples, Number(process.hrtime.bigint() - started) / 1e9);

    const select = (outId: string) =>
      raw.query({
        name: 'raw-get',
        text: 'SELECT * FROM bench_get.outputs WHERE out_id = $1',
        values: [outId],
      });
    for (const outId of picks.slice(0, 200)) await select(outId);
    const rawSamples: number[] = [];
    started = process.hrtime.bigint();
    for (const outId of picks) {
      const sent = process.hrtime.bigint();
      await select(outId);
      rawSamples.push(Number(process.hrtime.bigint() - sent) / 1e3);
    }
    const rawSummary = summarise(rawSamples, Number(process.hrtime.bigint() - started) / 1e9);
    return { records: sizes.getRecords, fillSeconds, ours, raw: rawSummary };
  } finally {
    await raw.end();
    await store.close();
    await blobs.close();
  }
}
