import type Database from 'better-sqlite3';
import { StorageFailureError } from '../errors.js';
import { insertedColumns, type OutputRow, recordColumns } from '../output-row.js';
import { outputRowSchema } from './row.js';

/**
 * Validates a raw `outputs` row; a row that does not fit the schema is a storage failure.
 *
 * @example
 * ```ts
 * const row = parseRow(statements.record.get(outId));
 * ```
 */
export function parseRow(raw: unknown): OutputRow {
  const parsed = outputRowSchema.safeParse(raw);
  if (!parsed.success) throw new StorageFailureError(`corrupt output row: ${parsed.error.message}`);
  return parsed.data;
}

/** The store's fixed prepared statements, by name. */
export type Statements = Record<
  | 'insert'
  | 'insertUnlessKeyed'
  | 'insertLabel'
  | 'byKey'
  | 'countSpawn'
  | 'record'
  | 'body'
  | 'tombstoneOf'
  | 'removeRow'
  | 'removeLabels'
  | 'tombstone'
  | 'fileShaUsed'
  | 'expired'
  | 'byRun'
  | 'totalBytes'
  | 'oldestFirst',
  Database.Statement
>;

/**
 * Prepares every fixed statement of the store once.
 *
 * @example
 * ```ts
 * const statements = prepareStatements(db);
 * ```
 */
export function prepareStatements(db: Database.Database): Statements {
  return {
    insert: db.prepare(
      `INSERT INTO outputs (${insertedColumns.join(', ')})
       VALUES (${insertedColumns.map(() => '?').join(', ')})`,
    ),
    insertUnlessKeyed: db.prepare(
      `INSERT INTO outputs (${insertedColumns.join(', ')})
       VALUES (${insertedColumns.map(() => '?').join(', ')})
       ON CONFLICT (owner_id, run_id, spawn_id, idempotency_key) DO NOTHING`,
    ),
    insertLabel: db.prepare('INSERT INTO output_labels (key, value, out_id) VALUES (?, ?, ?)'),
    byKey: db.prepare(
      `SELECT out_id, sha256, expires_at FROM outputs
       WHERE owner_id = ? AND run_id = ? AND spawn_id = ? AND idempotency_key = ?`,
    ),
    // One spawn's live outputs, the intake's quota count on every POST: fixed text, so it is
    // prepared once, and it leads with the unique key's columns so SQLite searches that index.
    countSpawn: db.prepare(
      `SELECT COUNT(*) AS total FROM outputs
       WHERE owner_id = ? AND run_id = ? AND spawn_id = ? AND (expires_at IS NULL OR expires_at > ?)`,
    ),
    record: db.prepare(`SELECT ${recordColumns} FROM outputs WHERE out_id = ?`),
    body: db.prepare('SELECT body FROM outputs WHERE out_id = ?'),
    tombstoneOf: db.prepare('SELECT reason FROM tombstones WHERE out_id = ?'),
    removeRow: db.prepare('DELETE FROM outputs WHERE out_id = ? RETURNING sha256, storage, size_bytes'),
    removeLabels: db.prepare('DELETE FROM output_labels WHERE out_id = ?'),
    tombstone: db.prepare('INSERT OR REPLACE INTO tombstones (out_id, reason, removed_at) VALUES (?, ?, ?)'),
    fileShaUsed: db.prepare("SELECT 1 AS used FROM outputs WHERE sha256 = ? AND storage = 'file' LIMIT 1"),
    expired: db.prepare('SELECT out_id FROM outputs WHERE expires_at <= ? OR created_at < ?'),
    byRun: db.prepare('SELECT out_id FROM outputs WHERE run_id = ?'),
    totalBytes: db.prepare('SELECT SUM(size_bytes) AS total FROM outputs'),
    oldestFirst: db.prepare('SELECT out_id, size_bytes FROM outputs ORDER BY seq'),
  };
}
