import type { ToolCallInput, ToolCallRecord } from './artifact-store.js';
import { formatArtifactId } from './ids.js';

/**
 * The record every artifact store keeps for a tool call: its execution metadata, the stored
 * output's size and its artifact id.
 *
 * @example
 * ```ts
 * toolCallRecord('abc-123', { seq: 1, toolName: 'ssh_exec', exitCode: 0, durationMs: 5, startedAt, endedAt }, 1024);
 * // { …, stderrBytes: 0, bytes: 1024, artifactId: 'abc-123/tool_calls/001_ssh_exec.txt' }
 * ```
 */
export function toolCallRecord(
  workerId: string,
  input: Omit<ToolCallInput, 'stderrBytes'> & { stderrBytes?: number | undefined },
  bytes: number,
): ToolCallRecord {
  return {
    seq: input.seq,
    toolName: input.toolName,
    exitCode: input.exitCode,
    durationMs: input.durationMs,
    stderrBytes: input.stderrBytes ?? 0,
    startedAt: input.startedAt,
    endedAt: input.endedAt,
    bytes,
    artifactId: formatArtifactId(workerId, input.seq, input.toolName),
  };
}
