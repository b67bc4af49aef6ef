import { type ArtifactStore, formatSpawnResult, type ToolIndexEntry } from '@wharf/evidence';
import type { SubagentInput, SubagentResult } from '@wharf/swarm';
import type { SubagentIds } from './activity-identity.js';

/** How one subagent (a script, an agent task, the supervisor) ended, as its activity knows it. */
export interface EndedSubagent
  extends Pick<
    SubagentResult,
    'outputs' | 'bytes' | 'durationMs' | 'exitCode' | 'signal' | 'timedOut' | 'usage' | 'supervisor'
  > {
  failed: boolean;
  /** A short preview of the output, as {@link SubagentResult}'s. */
  preview: string;
  /** The worker's last word, shown in its compact payload (`Summary: …`). */
  summary: string;
  /** Why it failed, for the task's reason; kept only when it failed. */
  stderrTail?: string | undefined;
  /** Its tool index, when the caller has it at hand; else read from the artifact store. */
  toolIndex?: readonly ToolIndexEntry[];
}

/**
 * The one way a subagent's activity hands back its result: status, output refs, and the
 * compact payload `formatSpawnResult` writes from the worker's tool index (status, tool index,
 * summary, evidence marker; ≈1 KB whatever the output), never a body.
 *
 * @example
 * ```ts
 * return subagentResult(artifacts, ids, { failed: false, outputs, bytes, durationMs, summary, preview });
 * ```
 */
export async function subagentResult(
  artifacts: ArtifactStore,
  ids: SubagentIds,
  ended: EndedSubagent,
): Promise<SubagentResult> {
  const status = ended.failed ? 'failed' : 'ok';
  return {
    status,
    outputs: ended.outputs,
    compact: formatSpawnResult({
      runId: ids.runId,
      jobId: ids.jobId,
      workerId: ids.workerId,
      status: ended.failed ? 'failed' : 'succeeded',
      durationMs: ended.durationMs,
      toolIndex: ended.toolIndex ?? (await artifacts.listToolCalls(ids.workerId)),
      summary: ended.summary,
    }),
    bytes: ended.bytes,
    ...(ended.exitCode === undefined ? {} : { exitCode: ended.exitCode }),
    // No signal and no timeout read the same absent: every result is recorded in history.
    ...(ended.signal === undefined || ended.signal === null ? {} : { signal: ended.signal }),
    ...(ended.timedOut === true ? { timedOut: true } : {}),
    durationMs: Math.round(ended.durationMs),
    preview: ended.preview,
    ...(ended.failed && ended.stderrTail !== undefined ? { stderrTail: ended.stderrTail } : {}),
    ...(ended.usage === undefined ? {} : { usage: ended.usage }),
    ...(ended.supervisor === undefined ? {} : { supervisor: ended.supervisor }),
  };
}

/**
 * A result without what its input asked an `ok` result to leave out (`SubagentInput.omit`: a
 * wide loop's instance whose compact payload, and maybe preview, the fold does not read). A
 * failed result is returned whole: the fold keeps the first failures' compacts and reasons.
 *
 * @example
 * ```ts
 * withoutOmitted(result, ['compact', 'preview']); // { status: 'ok', outputs, bytes, durationMs, … }
 * ```
 */
export function withoutOmitted(
  result: SubagentResult,
  omit: SubagentInput['omit'] | undefined,
): SubagentResult {
  if (result.status !== 'ok' || omit === undefined || omit.length === 0) return result;
  const { compact, preview, ...rest } = result;
  return {
    ...rest,
    ...(omit.includes('compact') || compact === undefined ? {} : { compact }),
    ...(omit.includes('preview') || preview === undefined ? {} : { preview }),
  };
}
