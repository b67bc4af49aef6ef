import { formatBytes, utf8Length } from '@wharf/common';
import type { ToolCallRecord, WorkerMetadata } from './artifact-store.js';

/**
 * Text shown in place of an output that was collected or lost after it was listed.
 *
 * @example
 * ```ts
 * const text = content ?? OUTPUT_GONE;
 * ```
 */
export const OUTPUT_GONE = '(output no longer available)';
/** Room reserved for the variable-width `formatBytes` text in a reservation. */
const SIZE_TEXT_SLACK = 8;

/**
 * True when a tool call counts as failed for prioritisation: a non-zero exit code, or any
 * output from stderr.
 *
 * @example
 * ```ts
 * isFailedCall({ exitCode: 1, stderrBytes: 0 }); // true
 * ```
 */
export function isFailedCall(call: Pick<ToolCallRecord, 'exitCode' | 'stderrBytes'>): boolean {
  return (call.exitCode !== null && call.exitCode !== 0) || call.stderrBytes > 0;
}

/**
 * First lines of a worker's evidence block.
 *
 * @example
 * ```ts
 * workerHeader(worker, { share: 16_000, total: 32_000 }, { shown: 2, total: 5 });
 * ```
 */
export function workerHeader(
  worker: WorkerMetadata,
  budget: { share: number; total: number },
  outputs: { shown: number; total: number },
): string {
  return (
    `--- Evidence for Worker ${worker.jobId} (${worker.workerId}) ---\n` +
    `Status: ${worker.status} | Budget: ${formatBytes(budget.share)} of ${formatBytes(budget.total)} | ` +
    `${outputs.shown} of ${outputs.total} outputs shown | Priority: failures first, then most recent\n\n`
  );
}

/**
 * Last line of a worker's evidence block.
 *
 * @example
 * ```ts
 * text.endsWith(WORKER_FOOTER);
 * ```
 */
export const WORKER_FOOTER = '--- End Evidence ---';

/**
 * Line saying how many outputs did not fit.
 *
 * @example
 * ```ts
 * omittedLine(3); // '(3 more outputs not shown; read them with get_tool_output)\n\n'
 * ```
 */
export function omittedLine(count: number): string {
  return `(${count} more outputs not shown; read them with get_tool_output)\n\n`;
}

/**
 * Line shown for a worker without any recorded tool call.
 *
 * @example
 * ```ts
 * const body = calls.length === 0 ? NO_TOOL_CALLS : entries;
 * ```
 */
export const NO_TOOL_CALLS = '(no tool calls recorded)\n\n';

/**
 * Header line of one tool output entry; `shown` when the output is cut.
 *
 * @example
 * ```ts
 * entryHeader(call, { head: 1024, tail: 4000 });
 * // '[FAILED] w1/tool_calls/002_build.txt (90000 B, exit=2, 5ms, showing head 1024 B + tail 4000 B):\n'
 * ```
 */
export function entryHeader(call: ToolCallRecord, shown?: { head: number; tail: number }): string {
  const parts = [`${call.bytes} B`];
  if (call.exitCode !== null) parts.push(`exit=${call.exitCode}`);
  parts.push(`${Math.round(call.durationMs)}ms`);
  if (call.stderrBytes > 0) parts.push(`stderr ${call.stderrBytes} B`);
  if (shown) {
    parts.push(
      shown.head > 0 ? `showing head ${shown.head} B + tail ${shown.tail} B` : `showing tail ${shown.tail} B`,
    );
  }
  return `${isFailedCall(call) ? '[FAILED] ' : ''}${call.artifactId} (${parts.join(', ')}):\n`;
}

/**
 * The cut marker between head and tail, stating how much was cut and where.
 *
 * @example
 * ```ts
 * truncationMarker(1024, 47104); // '\n[...truncated 45KB (bytes 1024-47104 not shown)...]\n'
 * ```
 */
export function truncationMarker(cutFrom: number, cutTo: number): string {
  return `\n[...truncated ${formatBytes(cutTo - cutFrom)} (bytes ${cutFrom}-${cutTo} not shown)...]\n`;
}

/**
 * Most bytes an entry's header can take, whatever head and tail are chosen.
 *
 * @example
 * ```ts
 * const room = allocation - entryHeaderReserve(call, true);
 * ```
 */
export function entryHeaderReserve(call: ToolCallRecord, truncated: boolean): number {
  return utf8Length(entryHeader(call, truncated ? { head: call.bytes, tail: call.bytes } : undefined));
}

/**
 * Most bytes a truncation marker of this call can take.
 *
 * @example
 * ```ts
 * const content = room - truncationMarkerReserve(call);
 * ```
 */
export function truncationMarkerReserve(call: ToolCallRecord): number {
  return utf8Length(truncationMarker(0, call.bytes)) + SIZE_TEXT_SLACK;
}

/**
 * Most bytes a worker header can take for `total` outputs.
 *
 * @example
 * ```ts
 * const fixed = workerHeaderReserve(worker, calls.length);
 * ```
 */
export function workerHeaderReserve(worker: WorkerMetadata, total: number): number {
  const budget = { share: 1023 * 1024 ** 3, total: 1023 * 1024 ** 3 };
  return utf8Length(workerHeader(worker, budget, { shown: total, total })) + 2 * SIZE_TEXT_SLACK;
}

/**
 * Bytes of an entry shown whole: header, output (or the "gone" notice) and separator.
 *
 * @example
 * ```ts
 * const fitsWhole = allocation >= fullEntryCost(call);
 * ```
 */
export function fullEntryCost(call: ToolCallRecord): number {
  return entryHeaderReserve(call, false) + Math.max(call.bytes, OUTPUT_GONE.length) + 2;
}

/**
 * Separator after an entry's content: one newline, two when the content lacks its own.
 *
 * @example
 * ```ts
 * entryEnd('ok\n'); // '\n'
 * ```
 */
export function entryEnd(content: string): string {
  return content.endsWith('\n') ? '\n' : '\n\n';
}
