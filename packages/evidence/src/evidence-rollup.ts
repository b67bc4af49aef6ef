import { clampUtf8, formatBytes, utf8Length } from '@wharf/common';
import type { ToolCallRecord, WorkerMetadata } from './artifact-store.js';
import { isFailedCall } from './evidence-layout.js';

/** Job ids of omitted failing workers a roll-up names, and biggest omitted outputs it lists. */
const NAMED_JOBS = 5;
const NAMED_OUTPUTS = 3;

/**
 * Bytes a compile keeps back for the roll-up line when not every worker fits the budget.
 *
 * @example
 * ```ts
 * const room = budget - Math.min(budget, ROLLUP_RESERVE_BYTES);
 * ```
 */
export const ROLLUP_RESERVE_BYTES = 640;

/** A worker left out of a compile, with its tool calls. */
export interface OmittedWorker {
  worker: WorkerMetadata;
  calls: readonly ToolCallRecord[];
  failed: boolean;
}

const byBytes = (left: ToolCallRecord, right: ToolCallRecord) =>
  right.bytes - left.bytes ||
  (left.artifactId < right.artifactId ? -1 : left.artifactId > right.artifactId ? 1 : 0);

/**
 * The one line that stands for the workers a compile could not show: how many by status,
 * how many outputs (and failed ones), the failing jobs and the biggest outputs left out, and
 * the evidence tools that pull them. Parts that do not fit `limitBytes` are dropped, last
 * first; the line never exceeds it.
 *
 * @example
 * ```ts
 * rollupLine({ omitted, totalWorkers: 1000, budgetBytes: 32_000, limitBytes: 640 });
 * // '[evidence roll-up: 940 of 1000 workers not shown to fit 31KB (2 failed, 938 succeeded); …]'
 * ```
 */
export function rollupLine(input: {
  omitted: readonly OmittedWorker[];
  totalWorkers: number;
  budgetBytes: number;
  limitBytes: number;
}): string {
  const { omitted } = input;
  const byStatus = new Map<string, number>();
  let outputs = 0;
  let failedOutputs = 0;
  let biggest: ToolCallRecord[] = [];
  for (const { worker, calls } of omitted) {
    byStatus.set(worker.status, (byStatus.get(worker.status) ?? 0) + 1);
    outputs += calls.length;
    for (const call of calls) {
      if (isFailedCall(call)) failedOutputs += 1;
      if (biggest.length < NAMED_OUTPUTS || byBytes(call, biggest[biggest.length - 1] as ToolCallRecord) < 0)
        biggest = [...biggest, call].sort(byBytes).slice(0, NAMED_OUTPUTS);
    }
  }
  const statuses = [...byStatus]
    .sort(([left], [right]) => (left === 'failed' ? -1 : right === 'failed' ? 1 : left < right ? -1 : 1))
    .map(([status, count]) => `${count} ${status}`)
    .join(', ');
  const failing = omitted.filter((entry) => entry.failed).map((entry) => entry.worker.jobId);
  const parts = [
    `[evidence roll-up: ${omitted.length} of ${input.totalWorkers} workers not shown to fit ` +
      `${formatBytes(input.budgetBytes)} (${statuses}); their ${outputs} outputs (${failedOutputs} failed) are stored.`,
    failing.length === 0
      ? ''
      : ` Failing jobs not shown: ${failing.slice(0, NAMED_JOBS).join(', ')}` +
        `${failing.length > NAMED_JOBS ? ` (+${failing.length - NAMED_JOBS} more)` : ''}.`,
    biggest.length === 0
      ? ''
      : ` Biggest not shown: ${biggest
          .map(
            (call) =>
              `${call.artifactId} (${formatBytes(call.bytes)}${call.exitCode === null ? '' : `, exit=${call.exitCode}`})`,
          )
          .join(', ')}.`,
  ];
  const end = ' Pull them with get_worker_evidence(job_id) or get_tool_output(artifact_id).]';
  let text = parts[0] ?? '';
  for (const part of parts.slice(1)) {
    if (utf8Length(text + part + end) <= input.limitBytes) text += part;
  }
  text += end;
  return utf8Length(text) <= input.limitBytes ? text : clampUtf8(text, input.limitBytes);
}
