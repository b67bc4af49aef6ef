import type { TaskOutput } from './schemas.js';
import type { WorkflowState } from './workflow-state.js';

/** Size and shape of the context kept in a workflow's state. */
export interface ContextMetrics {
  /** Bytes of all kept outputs (UTF-8 bytes of their contents unless counted otherwise). */
  totalBytes: number;
  taskCount: number;
  truncatedCount: number;
  /** Outputs whose full text is stored externally (`filePath` set). */
  externalCount: number;
  /** Mean stored relevance score, 0 when there are no outputs. */
  avgRelevance: number;
  /** Epoch milliseconds of the last prune, or null. */
  lastPrunedAt: number | null;
}

/** Options of {@link getContextMetrics}. */
export interface ContextMetricsOptions {
  /**
   * Bytes one output counts for. Default: the UTF-8 bytes of its `content`. A state that keeps
   * bodies elsewhere (an output store, with empty `content`) counts `originalSize` instead.
   */
  bytesOf?: (output: TaskOutput) => number;
}

/**
 * Measures the context kept in a workflow state.
 *
 * @example
 * ```ts
 * getContextMetrics(state); // { totalBytes: 20480, taskCount: 3, truncatedCount: 1, … }
 * ```
 */
export function getContextMetrics(state: WorkflowState, options: ContextMetricsOptions = {}): ContextMetrics {
  const bytesOf = options.bytesOf ?? ((output: TaskOutput) => Buffer.byteLength(output.content, 'utf8'));
  let totalBytes = 0;
  let truncatedCount = 0;
  let externalCount = 0;
  let relevance = 0;
  const outputs = Object.values(state.taskOutputs);
  for (const output of outputs) {
    totalBytes += bytesOf(output);
    if (output.truncated) truncatedCount++;
    if (output.filePath !== undefined) externalCount++;
    relevance += output.relevanceScore;
  }
  return {
    totalBytes,
    taskCount: outputs.length,
    truncatedCount,
    externalCount,
    avgRelevance: outputs.length === 0 ? 0 : relevance / outputs.length,
    lastPrunedAt: state.lastPrunedAt ?? null,
  };
}

/**
 * Metrics as log lines.
 *
 * @example
 * ```ts
 * console.log(formatContextMetrics(getContextMetrics(state)));
 * // Context metrics:\n  Total bytes: 20480\n  Task outputs: 3\n  Truncated: 1\n  External: 1\n  Avg relevance: 0.60\n  Last pruned: never
 * ```
 */
export function formatContextMetrics(metrics: ContextMetrics): string {
  return [
    'Context metrics:',
    `  Total bytes: ${metrics.totalBytes}`,
    `  Task outputs: ${metrics.taskCount}`,
    `  Truncated: ${metrics.truncatedCount}`,
    `  External: ${metrics.externalCount}`,
    `  Avg relevance: ${metrics.avgRelevance.toFixed(2)}`,
    `  Last pruned: ${metrics.lastPrunedAt === null ? 'never' : new Date(metrics.lastPrunedAt).toISOString()}`,
  ].join('\n');
}
