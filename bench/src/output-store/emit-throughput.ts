import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { newOutId, SqliteOutputStore } from '@wharf/output-store';
import Database from 'better-sqlite3';
import type { BenchRow } from '../harness.js';
import { pragmas, withTempDir } from './shared.js';
import type { OutputStoreSizes } from './sizes.js';

const producer = { ownerId: 'bench-owner', runId: 'bench-run', spawnId: 'bench-spawn', agent: 'bench' };
const slices = 10;

/**
 * Benchmark 1: N sequential EMITs of 1 KiB through SqliteOutputStore vs raw better-sqlite3
 * inserts (one autocommit each) of the same rows, ids made the store's way, with the same pragmas. The two run in
 * alternating slices so a change in machine load hits both alike.
 */
export async function emitThroughput(sizes: OutputStoreSizes): Promise<BenchRow> {
  const body = 'x'.repeat(sizes.emitBodyBytes);
  const bytes = Buffer.from(body);
  const sha = createHash('sha256').update(bytes).digest('hex');
  return withTempDir(async (directory) => {
    const store = new SqliteOutputStore({ path: join(directory, 'store.db'), synchronous: 'NORMAL' });
    const raw = new Database(join(directory, 'raw.db'));
    for (const pragma of pragmas) raw.pragma(pragma);
    raw.exec(`CREATE TABLE outputs (out_id TEXT PRIMARY KEY, owner_id TEXT, run_id TEXT, spawn_id TEXT, agent TEXT,
      idempotency_key TEXT, content_type TEXT, size_bytes INTEGER, sha256 TEXT, created_at INTEGER, storage TEXT,
      body BLOB, labels TEXT)`);
    const insert = raw.prepare('INSERT INTO outputs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
    const perSlice = Math.ceil(sizes.emits / slices);
    let oursSeconds = 0;
    let rawSeconds = 0;
    for (let slice = 0; slice < slices; slice++) {
      let started = process.hrtime.bigint();
      for (let index = slice * perSlice; index < (slice + 1) * perSlice; index++) {
        await store.emit({
          producer,
          content: { kind: 'text', text: body },
          idempotencyKey: `emit-${index}`,
        });
      }
      oursSeconds += Number(process.hrtime.bigint() - started) / 1e9;
      started = process.hrtime.bigint();
      for (let index = slice * perSlice; index < (slice + 1) * perSlice; index++) {
        // The store's own id scheme (time-ordered), so both sides grow the same index alike.
        const outId = newOutId();
        const { ownerId, runId, spawnId, agent } = producer;
        insert.run(
          outId,
          ownerId,
          runId,
          spawnId,
          agent,
          `emit-${index}`,
          'text/plain',
          bytes.length,
          sha,
          Date.now(),
          'inline',
          bytes,
          '{}',
        );
      }
      rawSeconds += Number(process.hrtime.bigint() - started) / 1e9;
    }
    await store.close();
    raw.close();
    const total = perSlice * slices;
    return {
      name: `emit ${total} x ${sizes.emitBodyBytes} B vs raw insert`,
      ours: total / oursSeconds,
      baseline: total / rawSeconds,
      target: 0.5,
    };
  });
}
