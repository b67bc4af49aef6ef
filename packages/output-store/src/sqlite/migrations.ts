import type Database from 'better-sqlite3';
import { StorageFailureError } from '../errors.js';

/**
 * Schema steps, applied in order; index + 1 is the schema version. Never edit a shipped
 * step: append a new one.
 */
const steps: readonly string[] = [
  `CREATE TABLE outputs (
     seq INTEGER PRIMARY KEY,
     out_id TEXT NOT NULL UNIQUE,
     owner_id TEXT NOT NULL,
     run_id TEXT NOT NULL,
     spawn_id TEXT NOT NULL,
     agent TEXT,
     idempotency_key TEXT NOT NULL,
     name TEXT,
     content_type TEXT NOT NULL,
     size_bytes INTEGER NOT NULL,
     sha256 TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     expires_at INTEGER,
     storage TEXT NOT NULL CHECK (storage IN ('inline', 'file')),
     body BLOB,
     labels TEXT NOT NULL DEFAULT '{}',
     UNIQUE (owner_id, idempotency_key)
   );
   CREATE INDEX outputs_by_run ON outputs (run_id, spawn_id);
   CREATE INDEX outputs_by_file_sha ON outputs (sha256) WHERE storage = 'file';
   CREATE TABLE output_labels (
     key TEXT NOT NULL,
     value TEXT NOT NULL,
     out_id TEXT NOT NULL,
     PRIMARY KEY (key, value, out_id)
   ) WITHOUT ROWID;
   CREATE TABLE tombstones (
     out_id TEXT PRIMARY KEY,
     reason TEXT NOT NULL,
     removed_at INTEGER NOT NULL
   ) WITHOUT ROWID;`,
  // 2: idempotency keys are unique per (owner, run, spawn), not per owner, so one spawn's key
  // never finds, conflicts with or returns another spawn's output. SQLite cannot alter a
  // table constraint: rebuild the table keeping every row and its seq (list cursors).
  `CREATE TABLE outputs_v2 (
     seq INTEGER PRIMARY KEY,
     out_id TEXT NOT NULL UNIQUE,
     owner_id TEXT NOT NULL,
     run_id TEXT NOT NULL,
     spawn_id TEXT NOT NULL,
     agent TEXT,
     idempotency_key TEXT NOT NULL,
     name TEXT,
     content_type TEXT NOT NULL,
     size_bytes INTEGER NOT NULL,
     sha256 TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     expires_at INTEGER,
     storage TEXT NOT NULL CHECK (storage IN ('inline', 'file')),
     body BLOB,
     labels TEXT NOT NULL DEFAULT '{}',
     UNIQUE (owner_id, run_id, spawn_id, idempotency_key)
   );
   INSERT INTO outputs_v2 (seq, out_id, owner_id, run_id, spawn_id, agent, idempotency_key, name, content_type,
     size_bytes, sha256, created_at, expires_at, storage, body, labels)
   SELECT seq, out_id, owner_id, run_id, spawn_id, agent, idempotency_key, name, content_type,
     size_bytes, sha256, created_at, expires_at, storage, body, labels FROM outputs;
   DROP TABLE outputs;
   ALTER TABLE outputs_v2 RENAME TO outputs;
   CREATE INDEX outputs_by_run ON outputs (run_id, spawn_id);
   CREATE INDEX outputs_by_file_sha ON outputs (sha256) WHERE storage = 'file';`,
  // 3: the key's unique index leads with (run, spawn), so it also serves every lookup by run
  // or by run and spawn, and outputs_by_run goes: one B-tree fewer to write per EMIT (about a
  // fifth of a small EMIT's insert). SQLite cannot reorder a table constraint: rebuild the
  // table keeping every row and its seq (list cursors).
  `CREATE TABLE outputs_v3 (
     seq INTEGER PRIMARY KEY,
     out_id TEXT NOT NULL UNIQUE,
     owner_id TEXT NOT NULL,
     run_id TEXT NOT NULL,
     spawn_id TEXT NOT NULL,
     agent TEXT,
     idempotency_key TEXT NOT NULL,
     name TEXT,
     content_type TEXT NOT NULL,
     size_bytes INTEGER NOT NULL,
     sha256 TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     expires_at INTEGER,
     storage TEXT NOT NULL CHECK (storage IN ('inline', 'file')),
     body BLOB,
     labels TEXT NOT NULL DEFAULT '{}',
     UNIQUE (run_id, spawn_id, owner_id, idempotency_key)
   );
   INSERT INTO outputs_v3 (seq, out_id, owner_id, run_id, spawn_id, agent, idempotency_key, name, content_type,
     size_bytes, sha256, created_at, expires_at, storage, body, labels)
   SELECT seq, out_id, owner_id, run_id, spawn_id, agent, idempotency_key, name, content_type,
     size_bytes, sha256, created_at, expires_at, storage, body, labels FROM outputs;
   DROP TABLE outputs;
   ALTER TABLE outputs_v3 RENAME TO outputs;
   CREATE INDEX outputs_by_file_sha ON outputs (sha256) WHERE storage = 'file';`,
  // 4: the store's own id, which the marker of a blob store it is given names (see
  // BlobStore.claim): a second store on the same bucket prefix is refused instead of sweeping
  // the first one's bodies as unreferenced.
  `CREATE TABLE store_identity (
     singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
     store_id TEXT NOT NULL
   );
   INSERT INTO store_identity (singleton, store_id) VALUES (1, lower(hex(randomblob(16))));`,
];

/** The schema version this code writes. */
export const latestSchemaVersion = steps.length;

/**
 * Brings the database to `target` (default {@link latestSchemaVersion}) inside one write
 * transaction, so two processes opening a fresh database at once cannot both migrate.
 * Refuses a database written by a newer version. A lower `target` builds an older schema
 * (tests of upgrades).
 *
 * @example
 * ```ts
 * migrate(new Database('outputs.db'));
 * ```
 */
export function migrate(db: Database.Database, target: number = latestSchemaVersion): number {
  return db
    .transaction(() => {
      db.exec(
        'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)',
      );
      const row = db.prepare('SELECT MAX(version) AS version FROM schema_migrations').get() as {
        version: number | null;
      };
      const current = row.version ?? 0;
      if (current > latestSchemaVersion) {
        throw new StorageFailureError(
          `database schema version ${current} is newer than this @wharf/output-store supports (${latestSchemaVersion})`,
        );
      }
      const record = db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)');
      for (let version = current + 1; version <= target; version++) {
        db.exec(steps[version - 1] ?? '');
        record.run(version, Date.now());
      }
      return Math.max(current, target);
    })
    .immediate();
}
