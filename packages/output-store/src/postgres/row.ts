import { z } from 'zod';
import { StorageFailureError } from '../errors.js';
import type { OutputRow } from '../output-row.js';

/** `BIGINT` columns arrive as decimal strings from the driver. */
const bigint = z.union([
  z.number().int(),
  z
    .string()
    .regex(/^-?\d{1,16}$/)
    .transform(Number),
]);

/** One `outputs` row as the `pg` driver returns it (without the body). */
export const postgresRowSchema = z.object({
  seq: bigint,
  out_id: z.string(),
  owner_id: z.string(),
  run_id: z.string(),
  spawn_id: z.string(),
  agent: z.string().nullable(),
  idempotency_key: z.string(),
  name: z.string().nullable(),
  content_type: z.string(),
  size_bytes: bigint.pipe(z.number().nonnegative()),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  created_at: bigint,
  expires_at: bigint.nullable(),
  storage: z.enum(['inline', 'file']),
  labels: z.record(z.string(), z.string()),
});

/**
 * Validates a raw row into the {@link OutputRow} every SQL backend reads records from; a row
 * that does not fit is a storage failure.
 *
 * @example
 * ```ts
 * const record = rowToRecord(parsePostgresRow(result.rows[0]));
 * ```
 */
export function parsePostgresRow(raw: unknown): OutputRow {
  const parsed = postgresRowSchema.safeParse(raw);
  if (!parsed.success) throw new StorageFailureError(`corrupt output row: ${parsed.error.message}`);
  return parsed.data;
}

/**
 * Parses a `BIGINT` (or `COUNT`/`SUM`) value the driver returned as text.
 *
 * @example
 * ```ts
 * toNumber('42'); // 42
 * ```
 */
export function toNumber(value: unknown): number {
  if (value === null || value === undefined) return 0;
  const parsed = bigint.safeParse(value);
  if (!parsed.success)
    throw new StorageFailureError(`expected an integer from PostgreSQL, got ${String(value)}`);
  return parsed.data;
}
