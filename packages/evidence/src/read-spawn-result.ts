import type { ArtifactStore } from './artifact-store.js';
import { EvidenceError } from './evidence-error.js';
import type { SpawnResult } from './format-spawn-result.js';

/**
 * Builds a {@link SpawnResult} from what a worker recorded: its metadata, the tool index of
 * its calls and its final message, ready for `formatSpawnResult`. Duration comes from the
 * metadata's `durationMs`, else from its start and end timestamps, else 0.
 *
 * @example
 * ```ts
 * const payload = formatSpawnResult(await readSpawnResult(store, 'abc-123'));
 * ```
 */
export async function readSpawnResult(store: ArtifactStore, workerId: string): Promise<SpawnResult> {
  const worker = await store.getWorker(workerId);
  if (!worker) throw new EvidenceError('ARTIFACT_NOT_FOUND', `worker ${workerId} does not exist`);
  const elapsed =
    worker.endedAt === undefined ? Number.NaN : Date.parse(worker.endedAt) - Date.parse(worker.startedAt);
  return {
    runId: worker.runId,
    jobId: worker.jobId,
    workerId: worker.workerId,
    status: worker.status,
    durationMs: worker.durationMs ?? (Number.isFinite(elapsed) && elapsed >= 0 ? elapsed : 0),
    toolIndex: await store.listToolCalls(workerId),
    summary: (await store.getResult(workerId)) ?? '',
  };
}
