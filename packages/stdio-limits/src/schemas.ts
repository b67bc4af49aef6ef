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
 * zod schema of an output type.
 *
 * @example
 * ```ts
 * outputTypeSchema.parse('stderr'); // 'stderr'
 * ```
 */
export const outputTypeSchema = z.enum(['stdout', 'stderr', 'combined', 'file', 'summary']);

/**
 * zod schema of a configured cleanup strategy (YAML form).
 *
 * @example
 * ```ts
 * cleanupStrategySchema.parse({ type: 'lru', keep_count: 10 });
 * ```
 */
export const cleanupStrategySchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('most_recent'), keep_count: byteCount }),
  z.strictObject({ type: z.literal('highest_relevance'), keep_count: byteCount }),
  z.strictObject({ type: z.literal('lru'), keep_count: byteCount }),
  z.strictObject({ type: z.literal('direct_dependencies') }),
]);

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
  max_context_bytes: byteCount.optional(),
  max_context_tasks: byteCount.optional(),
  relevance_threshold: z.number().min(0).max(1).optional(),
  time_window_secs: byteCount.optional(),
  cleanup_strategy: cleanupStrategySchema.optional(),
  external_storage_threshold: byteCount.optional(),
  external_storage_dir: z.string().min(1).optional(),
  compress_external: z.boolean().optional(),
  max_external_bytes: byteCount.optional(),
  kill_on_overflow: z.boolean().optional(),
  timeout_ms: z.number().int().positive().optional(),
  drain_timeout_ms: byteCount.optional(),
  context_masking: z.strictObject({ keep_recent: byteCount }).optional(),
});

/**
 * zod schema of a task's `context` block.
 *
 * @example
 * ```ts
 * taskContextSchema.parse({ mode: 'automatic', min_relevance: 0.8 });
 * ```
 */
export const taskContextSchema = z.strictObject({
  include_tasks: z.array(z.string()).optional(),
  exclude_tasks: z.array(z.string()).optional(),
  mode: z.enum(['automatic', 'manual', 'none']).optional(),
  min_relevance: z.number().min(0).max(1).optional(),
  max_bytes: byteCount.optional(),
});

/**
 * zod schema of the part of a task definition this package reads (other keys pass through).
 *
 * @example
 * ```ts
 * taskDefinitionSchema.parse({ agent: 'worker', depends_on: ['fetch'], inject_context: false });
 * ```
 */
export const taskDefinitionSchema = z.looseObject({
  agent: z.string().optional(),
  depends_on: z.array(z.string()).optional(),
  limits: limitsInputSchema.optional(),
  context: taskContextSchema.optional(),
  inject_context: z.boolean().optional(),
});

/**
 * zod schema of a `checkpoint_and_prune` hook.
 *
 * @example
 * ```ts
 * checkpointPruneSchema.parse({ every: 10, strategy: 'highest_relevance', keep_count: 20 });
 * ```
 */
export const checkpointPruneSchema = z.strictObject({
  every: z.number().int().positive(),
  strategy: z.enum(['most_recent', 'highest_relevance', 'lru', 'direct_dependencies']),
  keep_count: byteCount.optional(),
});

/**
 * zod schema of the part of a workflow definition this package reads (other keys pass through).
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
      taskDefinitionSchema.nullable().transform((task) => task ?? {}),
    )
    .optional(),
  hooks: z
    .looseObject({
      post_task: z
        .array(z.looseObject({ checkpoint_and_prune: checkpointPruneSchema.optional() }))
        .optional(),
    })
    .optional(),
});

/**
 * zod schema of a stored task output (JSON form, e.g. read back from a row or file).
 *
 * @example
 * ```ts
 * const output = taskOutputSchema.parse(JSON.parse(row.json)); // a stored TaskOutput, validated
 * ```
 */
export const taskOutputSchema = z.strictObject({
  taskId: z.string(),
  outputType: outputTypeSchema,
  content: z.string(),
  originalSize: byteCount,
  truncated: z.boolean(),
  strategy: truncationStrategySchema,
  filePath: z.string().optional(),
  relevanceScore: z.number().min(0).max(1),
  completedAt: z.number(),
  lastAccessed: z.number(),
  dependedBy: z.array(z.string()),
  agent: z.string().optional(),
});

/**
 * zod schema of a context configuration (camelCase, runtime form).
 *
 * @example
 * ```ts
 * contextConfigSchema.parse({ maxBytes: 51200, maxTasks: 5, relevanceThreshold: 0.5, cleanupStrategy: { type: 'direct_dependencies' } });
 * ```
 */
export const contextConfigSchema = z.strictObject({
  maxBytes: byteCount,
  maxTasks: byteCount,
  relevanceThreshold: z.number().min(0).max(1),
  timeWindowSecs: byteCount.optional(),
  cleanupStrategy: cleanupStrategySchema,
  maskKeepRecent: byteCount.optional(),
});

/** A `limits` block as written. */
export type LimitsInput = z.infer<typeof limitsInputSchema>;
/** A cleanup strategy as configured. */
export type CleanupStrategyConfig = z.infer<typeof cleanupStrategySchema>;
/** A task's `context` block. */
export type TaskContextConfig = z.infer<typeof taskContextSchema>;
/** The task fields this package reads. */
export type TaskDefinition = z.infer<typeof taskDefinitionSchema>;
/** The workflow fields this package reads. */
export type WorkflowDefinition = z.infer<typeof workflowDefinitionSchema>;
/** A `checkpoint_and_prune` hook. */
export type CheckpointPruneConfig = z.infer<typeof checkpointPruneSchema>;
/** What a task's output is. */
export type OutputType = z.infer<typeof outputTypeSchema>;
/** A task output kept in workflow state. Times are epoch milliseconds. */
export type TaskOutput = z.infer<typeof taskOutputSchema>;
/** Limits on the context injected into a task. */
export type ContextConfig = z.infer<typeof contextConfigSchema>;
