import type { ClientBase } from 'pg';
import { StorageFailureError } from '../errors.js';
import { lockKey64 } from './lock-keys.js';

/**
 * Indexes are few on purpose: every one is paid on each EMIT. Lists by run (and spawn) use
 * the idempotency key's index, lists by labels a GIN index of the labels; lists by owner alone
 * walk the commit order and filter; retention by age scans, as it runs now and then.
 *
 * Schema steps for a schema (quoted identifier `q`), applied in order; index + 1 is the
 * version. Never edit a shipped step: append a new one.
 */
function steps(q: string): readonly string[] {
  return [
    `CREATE TABLE ${q}.outputs (
       seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
       out_id TEXT NOT NULL UNIQUE,
       owner_id TEXT NOT NULL,
       run_id TEXT NOT NULL,
       spawn_id TEXT NOT NULL,
       agent TEXT,
       idempotency_key TEXT NOT NULL,
       name TEXT,
       content_type TEXT NOT NULL,
       size_bytes BIGINT NOT NULL,
       sha256 TEXT NOT NULL,
       created_at BIGINT NOT NULL,
       expires_at BIGINT,
       storage TEXT NOT NULL CHECK (storage IN ('inline', 'file')),
       body BYTEA,
       labels JSONB NOT NULL DEFAULT '{}',
       -- Leads with the run so it also serves list and count by run (and spawn).
       CONSTRAINT outputs_idempotency UNIQUE (run_id, spawn_id, owner_id, idempotency_key)
     );
     CREATE INDEX outputs_by_file_sha ON ${q}.outputs (sha256) WHERE storage = 'file';
     CREATE INDEX outputs_by_expiry ON ${q}.outputs (expires_at) WHERE expires_at IS NOT NULL;
     CREATE TABLE ${q}.tombstones (
       out_id TEXT PRIMARY KEY,
       reason TEXT NOT NULL,
       removed_at BIGINT NOT NULL
     );`,
    // 2: list pages follow the inserting transaction's id, then seq (see commit-cursor.ts):
    // rows commit out of seq order, so a seq cursor skipped rows committed late. Rows stored
    // before read as transaction 0, so a seq cursor of theirs still resumes where it was; the
    // constant default adds the column without rewriting the table.
    `ALTER TABLE ${q}.outputs ADD COLUMN xid xid8 NOT NULL DEFAULT '0';
     ALTER TABLE ${q}.outputs ALTER COLUMN xid SET DEFAULT pg_current_xact_id();
     CREATE INDEX outputs_by_commit ON ${q}.outputs (xid, seq);`,
    // 3: the store's own id, which its blob store's marker names (see BlobStore.claim): a
    // second store on the same directory or bucket prefix is refused instead of sweeping the
    // first one's bodies as unreferenced.
    `CREATE TABLE ${q}.store_identity (
       singleton BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (singleton),
       store_id TEXT NOT NULL,
       created_at TIMESTAMPTZ NOT NULL DEFAULT now()
     );
     INSERT INTO ${q}.store_identity (store_id) VALUES (gen_random_uuid()::text);`,
    // 4: lists by labels (`labels @>`) find their rows through an index, as SQLite's
    // output_labels table always did: without one, every such list read the whole table, and
    // the evidence store (which finds a worker's records by label on each write) made a wide
    // run's cost per worker grow with every output stored before it. No fast update: its
    // pending list is read in full by every lookup until a vacuum merges it, which brought the
    // growth back between vacuums; the direct insert costs an EMIT a few microseconds.
    `CREATE INDEX outputs_by_labels ON ${q}.outputs USING gin (labels jsonb_path_ops) WITH (fastupdate = off);`,
  ];
}

/** The schema version this code writes. */
export const latestPostgresSchemaVersion = steps('x').length;

/**
 * Brings `schema` to `target` (default {@link latestPostgresSchemaVersion}) in one
 * transaction under an advisory lock of that schema, so processes opening one database at
 * once migrate it exactly once; the others wait, then find it done. Refuses a schema
 * written by a newer version. Returns the version now in place.
 *
 * @example
 * ```ts
 * await migratePostgres(client, 'wharf');
 * ```
 */
export async function migratePostgres(
  client: ClientBase,
  schema: string,
  target: number = latestPostgresSchemaVersion,
): Promise<number> {
  const q = `"${schema}"`;
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [lockKey64(`migrate:${schema}`)]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${q}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${q}.schema_migrations (
         version INTEGER PRIMARY KEY,
         applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
       )`,
    );
    const { rows } = await client.query<{ version: number | null }>(
      `SELECT MAX(version) AS version FROM ${q}.schema_migrations`,
    );
    const current = rows[0]?.version ?? 0;
    if (current > latestPostgresSchemaVersion) {
      throw new StorageFailureError(
        `PostgreSQL schema "${schema}" is at version ${current}, newer than this @wharf/output-store supports (${latestPostgresSchemaVersion})`,
      );
    }
    const all = steps(q);
    for (let version = current + 1; version <= target; version++) {
      await client.query(all[version - 1] ?? '');
      await client.query(`INSERT INTO ${q}.schema_migrations (version) VALUES ($1)`, [version]);
    }
    await client.query('COMMIT');
    return Math.max(current, target);
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
