import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import {
  type LimitsInput,
  limitsInputSchema,
  type TaskLimits,
  type WorkflowDefinition,
  workflowDefinitionSchema,
} from './schemas.js';
import { StdioLimitsError, type StdioLimitsErrorCode, type StdioLimitsIssue } from './stdio-limits-error.js';

/** Limits with every default filled in. */
export interface ResolvedLimits {
  max_stdout_bytes: number;
  max_stderr_bytes: number;
  max_combined_bytes: number;
  truncation_strategy: 'head' | 'tail' | 'both' | 'summary';
  /** Streams above this many bytes, and any stream that gets cut, are stored in full. */
  external_storage_threshold: number;
  /** Directory for spill files; without it nothing is spilled. */
  external_storage_dir?: string;
  compress_external: boolean;
  /** Hard cap on the stream bytes stored in one spill file. */
  max_external_bytes: number;
  kill_on_overflow: boolean;
  timeout_ms?: number;
  drain_timeout_ms: number;
}

/**
 * The defaults of every limit. `max_combined_bytes` defaults to 1.5 MiB or the sum of the
 * per-stream caps, whichever is larger, so raising a stream cap alone is never undone by it.
 *
 * @example
 * ```ts
 * DEFAULT_LIMITS.max_stdout_bytes; // 1048576
 * ```
 */
export const DEFAULT_LIMITS = Object.freeze({
  max_stdout_bytes: 1_048_576,
  max_stderr_bytes: 262_144,
  max_combined_bytes: 1_572_864,
  truncation_strategy: 'tail',
  external_storage_threshold: 1_048_576,
  compress_external: false,
  max_external_bytes: 1_073_741_824,
  kill_on_overflow: false,
  drain_timeout_ms: 2_000,
} as const);

/**
 * Validates a `limits` block; `path` names where it came from in error messages.
 *
 * @example
 * ```ts
 * parseLimits({ max_stdout_bytes: 2048 }); // { max_stdout_bytes: 2048 }
 * parseLimits({ max_stdout_bytes: -1 }); // throws StdioLimitsError INVALID_LIMITS naming limits.max_stdout_bytes
 * ```
 */
export function parseLimits(input: unknown, path = 'limits'): LimitsInput {
  const parsed = limitsInputSchema.safeParse(input ?? {});
  if (!parsed.success) throw invalid('INVALID_LIMITS', parsed.error, path);
  return parsed.data;
}

/**
 * Validates the `limits` of a workflow definition and of its tasks (other keys pass through).
 *
 * @example
 * ```ts
 * const workflow = parseWorkflow({ limits: { truncation_strategy: 'both' }, tasks: { a: {} } });
 * ```
 */
export function parseWorkflow(input: unknown): WorkflowDefinition {
  const parsed = workflowDefinitionSchema.safeParse(input ?? {});
  if (!parsed.success) {
    const limitsOnly = parsed.error.issues.every((issue) => issue.path.includes('limits'));
    throw invalid(limitsOnly ? 'INVALID_LIMITS' : 'INVALID_WORKFLOW', parsed.error, '');
  }
  return parsed.data;
}

/**
 * Parses a workflow YAML document and validates it with {@link parseWorkflow}.
 *
 * @example
 * ```ts
 * const workflow = parseWorkflowYaml('limits:\n  max_stdout_bytes: 102400\n');
 * resolveLimits(workflow).max_stdout_bytes; // 102400
 * ```
 */
export function parseWorkflowYaml(text: string): WorkflowDefinition {
  let document: unknown;
  try {
    document = parseYaml(text);
  } catch (error) {
    throw new StdioLimitsError('INVALID_YAML', `workflow YAML does not parse: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return parseWorkflow(document);
}

/**
 * Effective limits of a task: defaults, then the workflow's `limits`, then the task's own.
 * `task` is a task id of `workflow.tasks` or a task definition. When a task raises a stream
 * cap without setting `max_combined_bytes`, the combined limit grows to fit both caps.
 *
 * @example
 * ```ts
 * const workflow = parseWorkflowYaml(`
 * limits: { max_stdout_bytes: 524288 }
 * tasks:
 *   verbose: { limits: { max_stdout_bytes: 2097152, truncation_strategy: summary } }
 * `);
 * resolveLimits(workflow, 'verbose').max_stdout_bytes; // 2097152
 * ```
 */
export function resolveLimits(workflow?: WorkflowDefinition, task?: string | TaskLimits): ResolvedLimits {
  const workflowLimits = parseLimits(workflow?.limits, 'limits');
  const definition = typeof task === 'string' ? workflow?.tasks?.[task] : task;
  const taskPath = typeof task === 'string' ? `tasks.${task}.limits` : 'task.limits';
  const taskLimits = parseLimits(definition?.limits, taskPath);
  const merged = {
    ...DEFAULT_LIMITS,
    ...stripUndefined(workflowLimits),
    ...stripUndefined(taskLimits),
  } as ResolvedLimits;
  const streams = merged.max_stdout_bytes + merged.max_stderr_bytes;
  const taskRaisedStream =
    taskLimits.max_stdout_bytes !== undefined || taskLimits.max_stderr_bytes !== undefined;
  const combined =
    taskLimits.max_combined_bytes ??
    (workflowLimits.max_combined_bytes !== undefined && !taskRaisedStream
      ? workflowLimits.max_combined_bytes
      : Math.max(workflowLimits.max_combined_bytes ?? DEFAULT_LIMITS.max_combined_bytes, streams));
  return { ...merged, max_combined_bytes: combined };
}

function stripUndefined<TValue extends object>(value: TValue): Partial<TValue> {
  return Object.fromEntries(
    Object.entries(value).filter(([, entry]) => entry !== undefined),
  ) as Partial<TValue>;
}

function invalid(code: StdioLimitsErrorCode, error: z.ZodError, prefix: string): StdioLimitsError {
  const issues: StdioLimitsIssue[] = error.issues.map((issue) => ({
    path: [prefix, ...issue.path.map(String)].filter((part) => part !== '').join('.'),
    message: issue.message,
  }));
  const summary = issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
  return new StdioLimitsError(code, `invalid configuration: ${summary}`, { cause: error, issues });
}
