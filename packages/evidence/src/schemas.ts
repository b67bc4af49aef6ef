import { z } from 'zod';
import { EvidenceError } from './evidence-error.js';

const id = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/, 'must be 1-128 of [A-Za-z0-9._:-]');
const timestamp = z.string().min(1).max(64);
const count = z.number().int().nonnegative();

/**
 * Shape of a worker's `metadata.json` (and of {@link WorkerMetadata} given to a store).
 *
 * @example
 * ```ts
 * const metadata = workerMetadataSchema.parse(JSON.parse(text));
 * ```
 */
export const workerMetadataSchema = z.strictObject({
  workerId: id,
  jobId: id,
  runId: id,
  ownerId: id,
  status: z.enum(['running', 'succeeded', 'failed', 'cancelled']),
  task: z.string().optional(),
  startedAt: timestamp,
  endedAt: timestamp.optional(),
  durationMs: z.number().nonnegative().optional(),
});

/**
 * Shape of the execution metadata given with a tool call's output.
 *
 * @example
 * ```ts
 * toolCallInputSchema.parse({ seq: 1, toolName: 'ssh_exec', exitCode: 0, durationMs: 5,
 *   startedAt: 't0', endedAt: 't1' });
 * ```
 */
export const toolCallInputSchema = z.strictObject({
  seq: z.number().int().min(1).max(999_999),
  toolName: z.string().min(1).max(200),
  exitCode: z.number().int().nullable(),
  durationMs: z.number().nonnegative(),
  stderrBytes: count.optional(),
  startedAt: timestamp,
  endedAt: timestamp,
});

/**
 * Shape of a stored tool call record (`tool_calls/NNN_<tool>.json`).
 *
 * @example
 * ```ts
 * const record = toolCallRecordSchema.parse(JSON.parse(text));
 * ```
 */
export const toolCallRecordSchema = toolCallInputSchema.extend({
  stderrBytes: count,
  bytes: count,
  artifactId: z.string().min(1),
});

/**
 * Input of the `get_worker_evidence` tool.
 *
 * @example
 * ```ts
 * getWorkerEvidenceInputSchema.parse({ job_id: '123', budget_bytes: 8000 });
 * getWorkerEvidenceInputSchema.parse({ task: 'line_counts', instance: 417 });
 * ```
 */
export const getWorkerEvidenceInputSchema = z.object({
  job_id: z
    .string()
    .min(1)
    .optional()
    .describe('Job id from the [EVIDENCE:...] marker of a worker result (or give task and instance).'),
  task: z
    .string()
    .min(1)
    .optional()
    .describe('Instead of job_id: the task whose worker to read, e.g. one found in a manifest.'),
  instance: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe(
      "With task: the loop instance (from 0, as in the loop's manifest); leave out for a task with no loop.",
    ),
  worker_id: z.string().min(1).optional().describe('Worker id from the same marker, when known.'),
  run_id: z.string().min(1).optional().describe('Run id from the same marker, when known.'),
  budget_bytes: z
    .number()
    .int()
    .min(256)
    .optional()
    .describe('Most bytes of evidence to return (default 16000).'),
});

/**
 * Input of the `get_worker_evidence` tool.
 *
 * @example
 * ```ts
 * const input: GetWorkerEvidenceInput = { job_id: '123', budget_bytes: 8000 };
 * ```
 */
export type GetWorkerEvidenceInput = z.infer<typeof getWorkerEvidenceInputSchema>;

/**
 * Input of the `get_tool_output` tool.
 *
 * @example
 * ```ts
 * getToolOutputInputSchema.parse({ artifact_id: 'abc/tool_calls/002_ssh_exec.txt', offset: 0 });
 * ```
 */
export const getToolOutputInputSchema = z.object({
  artifact_id: z
    .string()
    .min(1)
    .describe('Artifact id as shown in worker evidence, e.g. w1/tool_calls/002_ssh_exec.txt.'),
  offset: z.number().int().nonnegative().optional().describe('First byte to return (default 0).'),
  length: z.number().int().min(1).optional().describe('Most bytes to return (default and cap 16000).'),
});

/**
 * Input of the `get_tool_output` tool.
 *
 * @example
 * ```ts
 * const input: GetToolOutputInput = { artifact_id: 'w1/tool_calls/002_ssh_exec.txt', offset: 16_000 };
 * ```
 */
export type GetToolOutputInput = z.infer<typeof getToolOutputInputSchema>;

/**
 * Parses `value` with `schema`, turning zod issues into an {@link EvidenceError} that names
 * each failing path and its reason.
 *
 * @example
 * ```ts
 * const metadata = parseOrThrow(workerMetadataSchema, input, { code: 'INVALID_ARTIFACT', what: 'worker metadata' });
 * ```
 */
export function parseOrThrow<TOutput>(
  schema: z.ZodType<TOutput>,
  value: unknown,
  context: { code: 'INVALID_ARTIFACT' | 'CORRUPT_ARTIFACT' | 'INVALID_OPTIONS'; what: string },
): TOutput {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(root)'}: ${issue.message}`)
    .join('; ');
  throw new EvidenceError(context.code, `invalid ${context.what}: ${issues}`, { cause: result.error });
}

/**
 * Parses JSON text read from storage and validates it with `schema`; malformed JSON or a
 * wrong shape becomes a `CORRUPT_ARTIFACT` {@link EvidenceError} naming `what`.
 *
 * @example
 * ```ts
 * const metadata = parseStoredJson(workerMetadataSchema, text, 'w1/metadata.json');
 * ```
 */
export function parseStoredJson<TOutput>(schema: z.ZodType<TOutput>, text: string, what: string): TOutput {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new EvidenceError('CORRUPT_ARTIFACT', `${what} is not valid JSON`, { cause: error });
  }
  return parseOrThrow(schema, value, { code: 'CORRUPT_ARTIFACT', what });
}
