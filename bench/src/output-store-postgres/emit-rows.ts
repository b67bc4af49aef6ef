import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { LocalBlobStore, newOutId, type OutputStore, SqliteOutputStore } from '@wharf/output-store';
import { PostgresOutputStore } from '@wharf/output-store/postgres';
import pg from 'pg';
import type { BenchRow } from '../harness.js';
import type { PostgresStoreSizes } from './sizes.js';

const producer = { ownerId: 'bench-owner', runId: 'bench-run', spawnId: 'bench-spawn', agent: 'bench' };
const slices = 10;

/** Rates (EMITs per second) of the three sides of the EMIT rows. */
export interface EmitRows {
  vsInsert: BenchRow;
  vsSqlite: BenchRow;
}

async function emitSlice(
  store: OutputStore,
  body: string,
  from: number,
  count: number,
  tag: string,
): Promise<number> {
  const started = process.hrtime.bigint();
  for (let index = from; index < from + count; index++) {
    await store.emit({ producer, content: { kind: 'text', text: body }, idempotencyKey: `${tag}-${index}` });
  }
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/**
 * Sequential 1 KiB EMITs through PostgresOutputStore (LocalBlobStore for large bodies) against
 * the same rows as bare prepared `INSERT`s on one connection of the same server, and against
 * SqliteOutputStore (its body directory beside it). The sides run in alternating slices after
 * one untimed warm-up slice each, and each keeps its best slice, so load on the shared
 * machine falls on all of them alike.
 */
export async function emitRows(url: string, directory: string, sizes: PostgresStoreSizes): Promise<EmitRows> {
  const body = 'x'.repeat(sizes.emitBodyBytes);
  const bytes = Buffer.from(body);
  const sha = createHash('sha256').update(bytes).digest('hex');
  const blobs = new LocalBlobStore({ root: join(directory, 'pg-blobs') });
  const postgres = await PostgresOutputStore.open({ connectionString: url, schema: 'bench_emit', blobs });
  const sqlite = new SqliteOutputStore({ path: join(directory, 'emit.db'), synchronous: 'NORMAL' });
  const raw = new pg.Client({ connectionString: url });
  await raw.connect();
  await raw.query(`CREATE TABLE bare_outputs (out_id TEXT PRIMARY KEY, owner_id TEXT, run_id TEXT, spawn_id TEXT,
    agent TEXT, idempotency_key TEXT, content_type TEXT, size_bytes BIGINT, sha256 TEXT, created_at BIGINT,
    storage TEXT, body BYTEA, labels JSONB)`);
  const insertSlice = async (from: number, count: number): Promise<number> => {
    const started = process.hrtime.bigint();
    for (let index = from; index < from + count; index++) {
      await raw.query({
        name: 'bare-insert',
        text: 'INSERT INTO bare_outputs VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13::jsonb)',
        values: [
          newOutId(),
          producer.ownerId,
          producer.runId,
          producer.spawnId,
          producer.agent,
          `emit-${index}`,
          'text/plain',
          bytes.length,
          sha,
          Date.now(),
          'inline',
          bytes,
          '{}',
        ],
      });
    }
    return Number(process.hrtime.bigint() - started) / 1e9;
  };
  try {
    const perSlice = Math.ceil(sizes.emits / slices);
    await emitSlice(postgres, body, 0, perSlice, 'warm');
    await emitSlice(sqlite, body, 0, perSlice, 'warm');
    await insertSlice(-perSlice, perSlice);
    // Each side keeps its best slice: the one least disturbed by other work on the machine.
    // The order rotates per slice, so no side always follows the same neighbour (SQLite's
    // writeback, a warm connection).
    const best = {
      postgres: Number.POSITIVE_INFINITY,
      insert: Number.POSITIVE_INFINITY,
      sqlite: Number.POSITIVE_INFINITY,
    };
    const sides: [keyof typeof best, (from: number) => Promise<number>][] = [
      ['postgres', (from) => emitSlice(postgres, body, from, perSlice, 'emit')],
      ['insert', (from) => insertSlice(from, perSlice)],
      ['sqlite', (from) => emitSlice(sqlite, body, from, perSlice, 'emit')],
    ];
    for (let slice = 0; slice < slices; slice++) {
      for (let turn = 0; turn < sides.length; turn++) {
        const side = sides[(slice + turn) % sides.length];
        if (side === undefined) continue;
        const [name, run] = side;
        best[name] = Math.min(best[name], await run(slice * perSlice));
      }
    }
    const postgresSeconds = best.postgres;
    const insertSeconds = best.insert;
    const sqliteSeconds = best.sqlite;
    const total = perSlice * slices;
    const ours = perSlice / postgresSeconds;
    return {
      vsInsert: {
        name: `pg emit ${total} x ${sizes.emitBodyBytes} B vs bare INSERT`,
        ours,
        baseline: perSlice / insertSeconds,
        target: 0.5,
      },
      vsSqlite: {
        name: `pg emit ${total} x ${sizes.emitBodyBytes} B vs SQLite emit`,
        ours,
        baseline: perSlice / sqliteSeconds,
        target: 0.25,
      },
    };
  } finally {
    await raw.end();
    await postgres.close();
    await blobs.close();
    await sqlite.close();
  }
}
