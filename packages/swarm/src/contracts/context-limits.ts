import { z } from 'zod';

const count = z.number().int().nonnegative();

/**
 * The context keys of a `limits` block (swarm-wide or per task): how much of the earlier
 * outputs a task is shown. The capture keys of the same block are `@wharf/stdio-limits`'.
 *
 * @example
 * ```ts
 * z.strictObject(contextLimitsShape).parse({ max_context_tasks: 5, context_masking: { keep_recent: 2 } });
 * ```
 */
export const contextLimitsShape = {
  /** Most bytes of earlier outputs in one context. Default 100 KiB. */
  max_context_bytes: count.optional(),
  /** Most earlier outputs in one context. Default 10. */
  max_context_tasks: count.optional(),
  /** Least relevance an output needs to be shown (0–1). Default 0.3. */
  relevance_threshold: z.number().min(0).max(1).optional(),
  /** Only outputs that finished this many seconds before the task are shown. */
  time_window_secs: count.optional(),
  /**
   * Trims the swarm's context pool after every superstep (swarm-level `limits` only): keep the
   * `keep_count` most recent, last read (`lru`) or most relevant outputs, or the outputs of tasks
   * some task depends on. Outputs stay in the store. Not set: the pool is not trimmed.
   */
  cleanup_strategy: z
    .discriminatedUnion('type', [
      z.strictObject({ type: z.enum(['most_recent', 'highest_relevance', 'lru']), keep_count: count }),
      z.strictObject({ type: z.literal('direct_dependencies') }),
    ])
    .optional(),
  /** Only the N most recent outputs are shown in full; older ones become tombstones. */
  context_masking: z.strictObject({ keep_recent: count }).optional(),
};

/** The context keys of a `limits` block, as written. */
export type ContextLimitsInput = {
  [TKey in keyof typeof contextLimitsShape]?: z.output<(typeof contextLimitsShape)[TKey]>;
};

/** Context limits with the defaults filled in. */
export interface ContextLimits {
  maxBytes: number;
  maxTasks: number;
  relevanceThreshold: number;
  timeWindowSecs?: number;
  maskKeepRecent?: number;
}

/**
 * The defaults of the context limits.
 *
 * @example
 * ```ts
 * defaultContextLimits.maxBytes; // 102400
 * ```
 */
export const defaultContextLimits: Readonly<ContextLimits> = Object.freeze({
  maxBytes: 102_400,
  maxTasks: 10,
  relevanceThreshold: 0.3,
});

/**
 * Effective context limits: the defaults, then the swarm's `limits`, then the task's.
 *
 * @example
 * ```ts
 * resolveContextLimits({ max_context_tasks: 5 }, { max_context_bytes: 2048 });
 * // { maxBytes: 2048, maxTasks: 5, relevanceThreshold: 0.3 }
 * ```
 */
export function resolveContextLimits(
  swarm: ContextLimitsInput | undefined,
  task?: ContextLimitsInput | undefined,
): ContextLimits {
  const pick = <TKey extends keyof ContextLimitsInput>(key: TKey) => task?.[key] ?? swarm?.[key];
  const timeWindowSecs = pick('time_window_secs');
  const masking = pick('context_masking');
  return {
    maxBytes: pick('max_context_bytes') ?? defaultContextLimits.maxBytes,
    maxTasks: pick('max_context_tasks') ?? defaultContextLimits.maxTasks,
    relevanceThreshold: pick('relevance_threshold') ?? defaultContextLimits.relevanceThreshold,
    ...(timeWindowSecs === undefined ? {} : { timeWindowSecs }),
    ...(masking === undefined ? {} : { maskKeepRecent: masking.keep_recent }),
  };
}

/**
 * A `limits` block without its context keys: the capture limits `@wharf/stdio-limits` reads.
 *
 * @example
 * ```ts
 * captureLimitsOf({ max_stdout_bytes: 4096, max_context_tasks: 5 }); // { max_stdout_bytes: 4096 }
 * ```
 */
export function captureLimitsOf(
  limits: Readonly<Record<string, unknown>> | undefined,
): Record<string, unknown> {
  return Object.fromEntries(Object.entries(limits ?? {}).filter(([key]) => !(key in contextLimitsShape)));
}
