import type { ToolCallRecord } from './artifact-store.js';
import { formatEvidenceMarker, neutralizeEvidenceMarkers } from './evidence-marker.js';

/** One line of the tool index: execution metadata only, never the output itself. */
export type ToolIndexEntry = Pick<ToolCallRecord, 'seq' | 'toolName' | 'exitCode' | 'durationMs' | 'bytes'>;

/**
 * What {@link formatSpawnResult} needs to describe a finished worker.
 *
 * @example
 * ```ts
 * const result: SpawnResult = { runId: '48', jobId: '123', workerId: 'abc-123',
 *   status: 'succeeded', durationMs: 45_200, toolIndex: await store.listToolCalls('abc-123'),
 *   summary: await store.getResult('abc-123') };
 * ```
 */
export interface SpawnResult {
  runId: string;
  jobId: string;
  workerId: string;
  status: 'succeeded' | 'failed' | 'cancelled' | 'running';
  durationMs: number;
  toolIndex: readonly ToolIndexEntry[];
  /** The worker's own final message; may be empty or misleading. */
  summary?: string | undefined;
}

const SUMMARY_CHARACTERS = 500;
const MAX_INDEX_LINES = 20;

const STATUS_LINE: Record<SpawnResult['status'], string> = {
  succeeded: 'completed successfully',
  failed: 'failed',
  cancelled: 'was cancelled',
  running: 'is still running',
};

function isFailed(entry: ToolIndexEntry): boolean {
  return entry.exitCode !== null && entry.exitCode !== 0;
}

function cutSummary(summary: string): string {
  const characters = Array.from(summary.trim().replace(/\s+/g, ' '));
  const text = characters.slice(0, SUMMARY_CHARACTERS).join('');
  const safe = neutralizeEvidenceMarkers(text);
  return characters.length > SUMMARY_CHARACTERS ? `${safe}…` : safe;
}

function chooseIndexLines(entries: readonly ToolIndexEntry[]): ToolIndexEntry[] {
  const ordered = [...entries].sort((left, right) => left.seq - right.seq);
  if (ordered.length <= MAX_INDEX_LINES) return ordered;
  const failed = ordered.filter(isFailed).slice(-MAX_INDEX_LINES);
  const chosen = new Set(failed);
  for (let index = ordered.length - 1; index >= 0 && chosen.size < MAX_INDEX_LINES; index--) {
    const entry = ordered[index];
    if (entry) chosen.add(entry);
  }
  return ordered.filter((entry) => chosen.has(entry));
}

/**
 * The compact payload a supervisor keeps for a finished worker: status, duration and worker
 * id, the tool index (`n. tool [ok|FAILED, ms, bytes]`, at most 20 lines with failures and
 * the latest calls kept), the worker's summary cut to 500 characters, and the evidence
 * marker. It never contains raw tool output and stays near 1 KB. Markers inside the worker's
 * own words (summary, tool names) are defused with {@link neutralizeEvidenceMarkers}: the
 * payload's last line is its only marker.
 *
 * @example
 * ```ts
 * const payload = formatSpawnResult({ runId: '48', jobId: '123', workerId: 'abc-123',
 *   status: 'succeeded', durationMs: 45_200, toolIndex: calls, summary: '' });
 * ```
 */
export function formatSpawnResult(result: SpawnResult): string {
  const marker = formatEvidenceMarker(result);
  const lines = [
    `Worker job ${result.jobId} ${STATUS_LINE[result.status] ?? result.status}.`,
    `Duration: ${(result.durationMs / 1000).toFixed(1)}s | Worker ID: ${result.workerId}`,
    '',
  ];
  if (result.toolIndex.length > 0) {
    const shown = chooseIndexLines(result.toolIndex);
    const failures = result.toolIndex.filter(isFailed).length;
    const count = result.toolIndex.length;
    lines.push(`Tool Index (${count} call${count === 1 ? '' : 's'}, ${failures} failed):`);
    for (const entry of shown) {
      const exit = entry.exitCode === null ? '' : `, exit=${entry.exitCode}`;
      const status = isFailed(entry) ? 'FAILED' : 'ok';
      const name = neutralizeEvidenceMarkers(entry.toolName.replace(/\s+/g, ' ').slice(0, 60));
      lines.push(
        `  ${entry.seq}. ${name} [${status}${exit}, ${Math.round(entry.durationMs)}ms, ${entry.bytes} bytes]`,
      );
    }
    if (shown.length < result.toolIndex.length) {
      lines.push(`  … ${result.toolIndex.length - shown.length} earlier successful calls not listed`);
    }
    lines.push('');
  }
  const summary = cutSummary(result.summary ?? '');
  lines.push(summary.length > 0 ? `Summary: ${summary}` : 'Summary: (the worker left no final message)');
  lines.push('');
  lines.push(marker);
  return lines.join('\n');
}
