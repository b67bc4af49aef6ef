import { z } from 'zod';

const byteCount = z.number().int().nonnegative();

/**
 * zod schema of a truncation strategy name.
 *
 * @example
 * ```ts
 * truncationStrategySchema.parse('both'); // 'both'
 * ```
 */
export const truncationStrategySchema = z.enum(['head', 'tail', 'both', 'summary']);

/**
 * zod schema of a `limits` block as written (every field optional; unknown keys rejected).
 *
 * @example
 * ```ts
 * limitsInputSchema.safeParse({ max_stdout_bytes: -1 }).success; // false
 * ```
 */
export const limitsInputSchema = z.strictObject({
  max_stdout_bytes: byteCount.optional(),
  max_stderr_bytes: byteCount.optional(),
  max_combined_bytes: byteCount.optional(),
  truncation_strategy: truncationStrategySchema.optional(),
  external_storage_threshold: byteCount.optional(),
  external_storage_dir: z.string().min(1).optional(),
  compress_external: z.boolean().optional(),
  max_external_bytes: byteCount.optional(),
  kill_on_overflow: z.boolean().optional(),
  timeout_ms: z.number().int().positive().optional(),
  drain_timeout_ms: byteCount.optional(),
});

/**
 * zod schema of the part of a task definition this package reads, its `limits` (other keys
 * pass through).
 *
 * @example
 * ```ts
 * taskLimitsSchema.parse({ script: './build.sh', limits: { max_stdout_bytes: 4096 } });
 * ```
 */
export const taskLimitsSchema = z.looseObject({
  limits: limitsInputSchema.optional(),
});

/**
 * zod schema of the part of a workflow definition this package reads, the `limits` of the
 * workflow and of its tasks (other keys pass through).
 *
 * @example
 * ```ts
 * workflowDefinitionSchema.parse({ name: 'w', limits: { max_stdout_bytes: 2048 }, tasks: { a: {} } });
 * ```
 */
export const workflowDefinitionSchema = z.looseObject({
  name: z.string().optional(),
  version: z.string().optional(),
  limits: limitsInputSchema.optional(),
  tasks: z
    .record(
      z.string(),
      taskLimitsSchema.nullable().transform((task) => task ?? {}),
    )
    .optional(),
});

/** A `limits` block as written. */
export type LimitsInput = z.infer<typeof limitsInputSchema>;
/** The task fields this package reads. */
export type TaskLimits = z.infer<typeof taskLimitsSchema>;
/** The workflow fields this package reads. */
export type WorkflowDefinition = z.infer<typeof workflowDefinitionSchema>;
