import { type ArtifactStore, formatSpawnResult, type ToolIndexEntry } from '@wharf/evidence';
import type { SubagentResult } from '@wharf/swarm';
import type { SubagentIds } from './activity-identity.js';

/** How one subagent (a script, an agent task, the supervisor) ended, as its activity knows it. */
export interface EndedSubagent
  extends Pick<
    SubagentResult,
    | 'outputs'
    | 'bytes'
    | 'durationMs'
    | 'preview'
    | 'exitCode'
    | 'signal'
    | 'timedOut'
    | 'usage'
    | 'supervisor'
  > {
  failed: boolean;
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
    ...(ended.signal === undefined ? {} : { signal: ended.signal }),
    ...(ended.timedOut === undefined ? {} : { timedOut: ended.timedOut }),
    durationMs: ended.durationMs,
    preview: ended.preview,
    ...(ended.failed && ended.stderrTail !== undefined ? { stderrTail: ended.stderrTail } : {}),
    ...(ended.usage === undefined ? {} : { usage: ended.usage }),
    ...(ended.supervisor === undefined ? {} : { supervisor: ended.supervisor }),
  };
}
