import { z } from 'zod';

const labelsJson = z.string().transform((text, context) => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    context.addIssue({ code: 'custom', message: 'labels column is not JSON' });
    return z.NEVER;
  }
});

/** One `outputs` row as SQLite returns it (without the body): labels as JSON text. Parsed, an `OutputRow`. */
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
