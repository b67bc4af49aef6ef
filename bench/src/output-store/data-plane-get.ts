import type { OutputStore } from '@wharf/output-store';
import { openDataPlane } from '@wharf/output-store/config';
import { createS3Bucket, type S3Connection } from '@wharf/output-store/testing';
import { summarise } from './shared.js';

/** Latency quantiles (µs) and rate of one side. */
type LatencySummary = ReturnType<typeof summarise>;

/** Workload of {@link dataPlaneGet}. */
export interface DataPlaneGetSizes {
  /** Small records (256 B, kept in the row) filling the store. */
  records: number;
  /** Of them, bodies over the inline threshold (in the bucket). */
  bucketRecords: number;
  bucketBodyBytes: number;
  /** Timed `get`s of small records; of bucket records, a tenth of that. */
  samples: number;
}

/** `get` latency through a data plane opened as a worker opens it (PostgreSQL + S3). */
export interface DataPlaneGetResult {
  records: number;
  fillSeconds: number;
  /** 256 B bodies read from their row, on the host that wrote them. */
  inline: LatencySummary;
  /** The same records read by a second host (its own connection pool, nothing cached). */
  otherHost: LatencySummary;
  /** Bodies in the bucket, read whole by the second host. */
  bucket: LatencySummary;
}

async function timeGets(store: OutputStore, outIds: readonly string[]): Promise<LatencySummary> {
  const samples: number[] = [];
  const started = process.hrtime.bigint();
  for (const outId of outIds) {
    const sent = process.hrtime.bigint();
    await store.get({ outId });
    samples.push(Number(process.hrtime.bigint() - sent) / 1e3);
  }
  return summarise(samples, Number(process.hrtime.bigint() - started) / 1e9);
}

/**
 * Opens the same data plane twice with `openDataPlane` (two hosts: `WHARF_STORE=postgres://…`,
 * `WHARF_BLOBS=s3://…`), fills it from the first with N small records and a few large ones,
 * then times sequential `get`s of spread-out refs on each host.
 */
export async function dataPlaneGet(
  postgresUrl: string,
  s3: S3Connection,
  sizes: DataPlaneGetSizes,
): Promise<DataPlaneGetResult> {
  const bucket = 'bench-data-plane';
  await createS3Bucket(s3, bucket);
  const env = {
    WHARF_STORE: postgresUrl,
    WHARF_BLOBS: `s3://${bucket}/outputs?endpoint=${s3.endpoint}`,
    AWS_ACCESS_KEY_ID: s3.accessKeyId,
    AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
    AWS_REGION: s3.region,
  };
  const writer = await openDataPlane({ env, postgres: { schema: 'bench_plane' } });
  const reader = await openDataPlane({ env, postgres: { schema: 'bench_plane' } });
  try {
    const body = 'g'.repeat(256);
    const big = 'B'.repeat(sizes.bucketBodyBytes);
    const small: string[] = [];
    const large: string[] = [];
    const filled = process.hrtime.bigint();
    for (let first = 0; first < sizes.records; first += 500) {
      const group = Array.from({ length: Math.min(500, sizes.records - first) }, (_, offset) => {
        const index = first + offset;
        const inBucket = index % Math.ceil(sizes.records / sizes.bucketRecords) === 0;
        return writer.store
          .emit({
            producer: { ownerId: 'bench', runId: `run-${index % 1000}`, spawnId: `spawn-${index}` },
            content: { kind: 'text', text: `${index}${inBucket ? big : body}` },
            idempotencyKey: `fill-${index}`,
          })
          .then((ref) => (inBucket ? large : small).push(ref.outId));
      });
      await Promise.all(group);
    }
    const fillSeconds = Number(process.hrtime.bigint() - filled) / 1e9;
    const spread = (ids: readonly string[], count: number) =>
      Array.from({ length: count }, (_, index) => ids[(index * 7919 + 13) % ids.length] ?? '');
    const picks = spread(small, sizes.samples);
    const bucketPicks = spread(large, Math.max(20, Math.floor(sizes.samples / 10)));
    // Warm each pool's connections and prepared plans, not the rows.
    for (const store of [writer.store, reader.store])
      for (const outId of spread(small, 100)) await store.get({ outId });
    const inline = await timeGets(writer.store, picks);
    const otherHost = await timeGets(reader.store, [...picks].reverse());
    const bucketLatency = await timeGets(reader.store, bucketPicks);
    return { records: sizes.records, fillSeconds, inline, otherHost, bucket: bucketLatency };
  } finally {
    await reader.close();
    await writer.close();
  }
}
