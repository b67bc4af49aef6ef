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
 * The SQL of every fixed statement of the store, by name (the writer thread prepares some of
 * them on its own connection).
 *
 * @example
 * ```ts
 * db.prepare(statementSql.byKey).get(ownerId, runId, spawnId, key);
 * ```
 */
export const statementSql: Readonly<Record<keyof Statements, string>> = {
  insert: `INSERT INTO outputs (${insertedColumns.join(', ')})
       VALUES (${insertedColumns.map(() => '?').join(', ')})`,
  insertUnlessKeyed: `INSERT INTO outputs (${insertedColumns.join(', ')})
       VALUES (${insertedColumns.map(() => '?').join(', ')})
       ON CONFLICT (owner_id, run_id, spawn_id, idempotency_key) DO NOTHING`,
  insertLabel: 'INSERT INTO output_labels (key, value, out_id) VALUES (?, ?, ?)',
  byKey: `SELECT out_id, sha256, expires_at FROM outputs
       WHERE owner_id = ? AND run_id = ? AND spawn_id = ? AND idempotency_key = ?`,
  // One spawn's live outputs, the intake's quota count on every POST: fixed text, so it is
  // prepared once, and it leads with the unique key's columns so SQLite searches that index.
  countSpawn: `SELECT COUNT(*) AS total FROM outputs
       WHERE owner_id = ? AND run_id = ? AND spawn_id = ? AND (expires_at IS NULL OR expires_at > ?)`,
  record: `SELECT ${recordColumns} FROM outputs WHERE out_id = ?`,
  body: 'SELECT body FROM outputs WHERE out_id = ?',
  tombstoneOf: 'SELECT reason FROM tombstones WHERE out_id = ?',
  removeRow: 'DELETE FROM outputs WHERE out_id = ? RETURNING sha256, storage, size_bytes',
  removeLabels: 'DELETE FROM output_labels WHERE out_id = ?',
  tombstone: 'INSERT OR REPLACE INTO tombstones (out_id, reason, removed_at) VALUES (?, ?, ?)',
  fileShaUsed: "SELECT 1 AS used FROM outputs WHERE sha256 = ? AND storage = 'file' LIMIT 1",
  expired: 'SELECT out_id FROM outputs WHERE expires_at <= ? OR created_at < ?',
  byRun: 'SELECT out_id FROM outputs WHERE run_id = ?',
  totalBytes: 'SELECT SUM(size_bytes) AS total FROM outputs',
  oldestFirst: 'SELECT out_id, size_bytes FROM outputs ORDER BY seq',
};

/**
 * Prepares every fixed statement of the store once.
 *
 * @example
 * ```ts
 * const statements = prepareStatements(db);
 * ```
 */
export function prepareStatements(db: Database.Database): Statements {
  return Object.fromEntries(
    Object.entries(statementSql).map(([name, sql]) => [name, db.prepare(sql)]),
  ) as Statements;
}
