import { z } from 'zod';
import type { OutputRecord } from '../types.js';

const labelsJson = z.string().transform((text, context) => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    context.addIssue({ code: 'custom', message: 'labels column is not JSON' });
    return z.NEVER;
  }
});

/** One `outputs` row as SQLite returns it (without the body). */
export const outputRowSchema = z.object({
  seq: z.number().int(),
  out_id: z.string(),
  owner_id: z.string(),
  run_id: z.string(),
  spawn_id: z.string(),
  agent: z.string().nullable(),
  idempotency_key: z.string(),
  name: z.string().nullable(),
  content_type: z.string(),
  size_bytes: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  created_at: z.number().int(),
  expires_at: z.number().int().nullable(),
  storage: z.enum(['inline', 'file']),
  labels: labelsJson.pipe(z.record(z.string(), z.string())),
});

/** A parsed `outputs` row. */
export type OutputRow = z.infer<typeof outputRowSchema>;

/** Columns selected for a record (everything but the body). */
export const recordColumns =
  'seq, out_id, owner_id, run_id, spawn_id, agent, idempotency_key, name, content_type, size_bytes, sha256, created_at, expires_at, storage, labels';

/**
 * Turns a validated row into the public {@link OutputRecord}.
 *
 * @example
 * ```ts
 * const record = rowToRecord(outputRowSchema.parse(statement.get(outId)));
 * ```
 */
export function rowToRecord(row: OutputRow): OutputRecord {
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
    labels: row.labels,
    idempotencyKey: row.idempotency_key,
  };
}
