import { defaultContentType } from './inline-content.js';
import type { SpooledBody } from './spool-body.js';
import type { OutputEvent, OutputRecord } from './types.js';

/**
 * One `outputs` row without its body, once a backend has parsed it (SQLite's `sqlite/row.ts`,
 * PostgreSQL's `postgres/row.ts`): the shape every SQL backend stores and reads an output as.
 *
 * @example
 * ```ts
 * const record = rowToRecord(parsePostgresRow(result.rows[0]));
 * ```
 */
export interface OutputRow {
  readonly seq: number;
  readonly out_id: string;
  readonly owner_id: string;
  readonly run_id: string;
  readonly spawn_id: string;
  readonly agent: string | null;
  readonly idempotency_key: string;
  readonly name: string | null;
  readonly content_type: string;
  readonly size_bytes: number;
  readonly sha256: string;
  readonly created_at: number;
  readonly expires_at: number | null;
  readonly storage: 'inline' | 'file';
  readonly labels: Record<string, string>;
}

/** Columns selected for a record (everything but the body), the same in every SQL backend. */
export const recordColumns =
  'seq, out_id, owner_id, run_id, spawn_id, agent, idempotency_key, name, content_type, size_bytes, sha256, created_at, expires_at, storage, labels';

/**
 * Turns a parsed row into the public {@link OutputRecord}.
 *
 * @example
 * ```ts
 * const record = rowToRecord(parseRow(statement.get(outId)));
 * ```
 */
export function rowToRecord(row: OutputRow): OutputRecord {
  return recordOf(row, row.labels);
}

/**
 * The {@link OutputRecord} of a row's columns and its labels: what {@link rowToRecord} answers,
 * also for a row just inserted, from the values bound to its `INSERT` (no `seq`, labels as given).
 *
 * @example
 * ```ts
 * const record = recordOf(rowValues(event, spooled, now, outId), event.labels ?? {});
 * ```
 */
export function recordOf(
  row: Omit<OutputRow, 'seq' | 'labels'>,
  labels: Readonly<Record<string, string>>,
): OutputRecord {
  return {
    outId: row.out_id,
    producer: {
      ownerId: row.owner_id,
      runId: row.run_id,
      spawnId: row.spawn_id,
      ...(row.agent === null ? {} : { agent: row.agent }),
    },
    ...(row.name === null ? {} : { name: row.name }),
    contentType: row.content_type,
    sizeBytes: row.size_bytes,
    sha256: row.sha256,
    createdAt: new Date(row.created_at).toISOString(),
    ...(row.expires_at === null ? {} : { expiresAt: new Date(row.expires_at).toISOString() }),
    storage: row.storage,
    labels,
    idempotencyKey: row.idempotency_key,
  };
}

/** The column values of a new `outputs` row: its body inline or `null`, its labels as JSON text. */
export type RowValues = Omit<OutputRow, 'seq' | 'labels'> & { body: Uint8Array | null; labels: string };

/**
 * The values of the row a new output is inserted as, in every SQL backend.
 *
 * @example
 * ```ts
 * statements.insert.run(...insertParameters(rowValues(event, spooled, Date.now(), newOutId())));
 * ```
 */
export function rowValues(event: OutputEvent, spooled: SpooledBody, now: number, outId: string): RowValues {
  const { producer } = event;
  return {
    out_id: outId,
    owner_id: producer.ownerId,
    run_id: producer.runId,
    spawn_id: producer.spawnId,
    agent: producer.agent ?? null,
    idempotency_key: event.idempotencyKey,
    name: event.name ?? null,
    content_type: event.contentType ?? defaultContentType(event.content),
    size_bytes: spooled.kind === 'inline' ? spooled.bytes.byteLength : spooled.sizeBytes,
    sha256: spooled.sha256,
    created_at: now,
    expires_at: event.ttlMs === undefined ? null : now + event.ttlMs,
    storage: spooled.kind === 'inline' ? 'inline' : 'file',
    body: spooled.kind === 'inline' ? spooled.bytes : null,
    labels: JSON.stringify(event.labels ?? {}),
  };
}

/** The columns of an `INSERT` of {@link RowValues}, in the order {@link insertParameters} binds them. */
export const insertedColumns = [
  'out_id',
  'owner_id',
  'run_id',
  'spawn_id',
  'agent',
  'idempotency_key',
  'name',
  'content_type',
  'size_bytes',
  'sha256',
  'created_at',
  'expires_at',
  'storage',
  'body',
  'labels',
] as const satisfies readonly (keyof RowValues)[];

/**
 * {@link RowValues} as positional parameters in the order of {@link insertedColumns}: binding
 * by position spares the SQLite driver a property lookup per named parameter on every insert.
 *
 * @example
 * ```ts
 * db.prepare(`INSERT INTO outputs (${insertedColumns.join(', ')}) VALUES (${insertedColumns.map(() => '?').join(', ')})`)
 *   .run(...insertParameters(values));
 * ```
 */
export function insertParameters(values: RowValues): RowValues[(typeof insertedColumns)[number]][] {
  return [
    values.out_id,
    values.owner_id,
    values.run_id,
    values.spawn_id,
    values.agent,
    values.idempotency_key,
    values.name,
    values.content_type,
    values.size_bytes,
    values.sha256,
    values.created_at,
    values.expires_at,
    values.storage,
    values.body,
    values.labels,
  ];
}
