import { z } from 'zod';
import { storableText } from './storable-text.js';

/** Ids, keys, names and labels refuse NUL and lone surrogates on every store (see `unstorableReason`). */
const id = storableText(1, 256);

/**
 * Claims inside a per-spawn token (see `issueSpawnToken`).
 *
 * @example
 * ```ts
 * const claims = spawnTokenClaimsSchema.parse(untrusted); // throws a ZodError naming the field
 * ```
 */
export const spawnTokenClaimsSchema = z.object({
  /** Token format version. */
  v: z.literal(1),
  ownerId: id,
  runId: id,
  spawnId: id,
  agent: id.optional(),
  /** Output ids the spawn may read besides its own (its IN_REFS). */
  readRefs: z.array(z.string()).max(10_000),
  /**
   * The spawn may read every output of its own owner's run. For wide fan-ins (a join over
   * thousands of outputs) whose IN_REFS would not fit in a token sent as a header.
   */
  readRun: z.boolean().optional(),
  /**
   * With `readRun`: other runs of the same owner whose outputs the spawn may read as well (a
   * re-run's join reads the outputs it reuses, which keep the run ids that stored them).
   */
  readRuns: z.array(id).max(100).optional(),
  /** Epoch milliseconds after which the token is refused. */
  expiresAt: z.number().int(),
  /** How many outputs the spawn may store. */
  maxOutputs: z.number().int().positive(),
  /** Largest body the spawn may store, in bytes. */
  maxOutputBytes: z.number().int().positive(),
});

/**
 * Validated claims of a per-spawn token.
 *
 * @example
 * ```ts
 * const claims: SpawnTokenClaims = {
 *   v: 1, ownerId: 'team-a', runId: 'run-7', spawnId: 'spawn-3', readRefs: [],
 *   expiresAt: Date.now() + 600_000, maxOutputs: 8, maxOutputBytes: 2 ** 20,
 * };
 * ```
 */
export type SpawnTokenClaims = z.infer<typeof spawnTokenClaimsSchema>;

const labels = z.record(storableText(1, 128), storableText(0, 1024));

/** Body of a JSON `POST /v1/outputs` (small outputs). */
export const jsonEmitRequestSchema = z.object({
  idempotencyKey: storableText(1, 512),
  name: storableText(1, 1024).optional(),
  contentType: storableText(1, 256).optional(),
  labels: labels.optional(),
  ttlMs: z.number().int().positive().optional(),
  content: z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('text'), text: z.string() }),
    z.object({ kind: z.literal('json'), value: z.json() }),
    z.object({ kind: z.literal('bytes'), base64: z.base64() }),
  ]),
});

/** A parsed JSON emit request. */
export type JsonEmitRequest = z.infer<typeof jsonEmitRequestSchema>;

/** Labels header (`X-Wharf-Labels`) after URL-decoding: `step=draft&lang=en`. */
export const labelsSchema = labels;

/** An output record as the HTTP API returns it. */
export const outputRecordSchema = z.object({
  outId: z.string(),
  producer: z.object({
    ownerId: z.string(),
    runId: z.string(),
    spawnId: z.string(),
    agent: z.string().optional(),
  }),
  name: z.string().optional(),
  contentType: z.string(),
  sizeBytes: z.number().int().nonnegative(),
  sha256: z.string(),
  createdAt: z.string(),
  expiresAt: z.string().optional(),
  storage: z.enum(['inline', 'file']),
  labels: z.record(z.string(), z.string()),
  idempotencyKey: z.string(),
});

/** Response of `POST /v1/outputs`. */
export const emitResponseSchema = z.object({
  ref: z.object({ outId: z.string() }),
  record: outputRecordSchema,
});

/** Error body of every failed HTTP call. */
export const errorResponseSchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    field: z.string().optional(),
    reason: z.string().optional(),
    limitBytes: z.number().optional(),
  }),
});
