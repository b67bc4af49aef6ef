import type { ArtifactStore, WorkerStatus } from '@wharf/evidence';
import type { SubagentIds } from './activity-identity.js';

/**
 * Records a subagent's worker metadata (start, or end with its duration) in the artifact store.
 *
 * @example
 * ```ts
 * await recordWorker(artifacts, ids, { task: 'build', status: 'running', startedAt: new Date() });
 * ```
 */
export async function recordWorker(
  artifacts: ArtifactStore,
  ids: SubagentIds,
  worker: { task: string; status: WorkerStatus; startedAt: Date; endedAt?: Date; durationMs?: number },
): Promise<void> {
  await artifacts.putWorker({
    workerId: ids.workerId,
    jobId: ids.jobId,
    runId: ids.runId,
    ownerId: ids.ownerId,
    status: worker.status,
    task: worker.task,
    startedAt: worker.startedAt.toISOString(),
    ...(worker.endedAt === undefined
      ? {}
      : {
          endedAt: worker.endedAt.toISOString(),
          durationMs: worker.durationMs ?? worker.endedAt.getTime() - worker.startedAt.getTime(),
        }),
  });
}
