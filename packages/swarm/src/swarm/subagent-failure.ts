// Pure: how a failed subagent reads in a task's progress and in the swarm's results.
import type { SubagentResult } from '../contracts/agent-contracts.js';

/**
 * Why a subagent failed, in one line: exit code, signal, timeout, the last three lines of its
 * stderr (at most 300 characters).
 *
 * @example
 * ```ts
 * failureReason({ ...result, exitCode: 3, stderrTail: 'disk on fire\n' }); // 'exit 3 · disk on fire'
 * ```
 */
export function failureReason(result: SubagentResult): string {
  const parts: string[] = [];
  if (result.exitCode !== undefined && result.exitCode !== null) parts.push(`exit ${result.exitCode}`);
  if (result.signal) parts.push(`signal ${result.signal}`);
  if (result.timedOut) parts.push('timed out');
  const tail = result.stderrTail?.trim().split('\n').slice(-3).join(' ⏎ ');
  if (tail) parts.push(tail.length > 300 ? `…${tail.slice(-300)}` : tail);
  return parts.join(' · ') || 'failed';
}

/**
 * The result of an instance whose activity failed for good (retries exhausted, a non-retryable
 * error) before its subagent could hand in anything: it folds like any failed subagent.
 *
 * @example
 * ```ts
 * failedBeforeOutput('count#2', 'heartbeat timeout').compact; // '[count#2] failed before producing output: heartbeat timeout'
 * ```
 */
export function failedBeforeOutput(label: string, message: string): SubagentResult {
  return {
    status: 'failed',
    outputs: [],
    compact: `[${label}] failed before producing output: ${message}`,
    bytes: 0,
    durationMs: 0,
    preview: '',
    stderrTail: message,
  };
}
