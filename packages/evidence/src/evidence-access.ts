import type { ArtifactStore, WorkerMetadata } from './artifact-store.js';

/**
 * Result of {@link checkEvidenceAccess}.
 *
 * @example
 * ```ts
 * const access: EvidenceAccess = await checkEvidenceAccess(marker, { store, runId, ownerId });
 * ```
 */
export type EvidenceAccess =
  | { outcome: 'allowed'; worker: WorkerMetadata }
  | { outcome: 'refused' | 'unavailable'; reason: string };

/**
 * Decides whether a supervisor (its owner and run) may see a worker's evidence, before any
 * artifact is read: another run (unless the supervisor's run reads it: a re-run's `readRuns`,
 * the runs whose outputs it reuses), another owner's worker, or a job id that does not match
 * the worker is refused; a worker without artifacts (never stored, or collected) is
 * unavailable. Storage errors also count as unavailable, so a caller never throws for a
 * bad pointer.
 *
 * @example
 * ```ts
 * const access = await checkEvidenceAccess(
 *   { runId: '48', jobId: '123', workerId: 'abc-123' },
 *   { store, runId: '48', ownerId: 'o1' },
 * );
 * if (access.outcome !== 'allowed') console.log(access.reason);
 * // A re-run's supervisor may see the workers of the run it reuses outputs of:
 * await checkEvidenceAccess(
 *   { runId: '47', jobId: '9', workerId: 'w9' },
 *   { store, runId: '48', ownerId: 'o1', readRuns: ['47'] },
 * );
 * ```
 */
export async function checkEvidenceAccess(
  target: { runId?: string | undefined; jobId: string; workerId: string },
  scope: { runId: string; ownerId: string; store: ArtifactStore; readRuns?: readonly string[] | undefined },
): Promise<EvidenceAccess> {
  const readable = (runId: string) => runId === scope.runId || scope.readRuns?.includes(runId) === true;
  if (target.runId !== undefined && !readable(target.runId)) {
    return { outcome: 'refused', reason: `run ${target.runId} is not this run` };
  }
  let worker: WorkerMetadata | undefined;
  try {
    worker = await scope.store.getWorker(target.workerId);
  } catch (error) {
    return { outcome: 'unavailable', reason: error instanceof Error ? error.message : String(error) };
  }
  if (!worker) return { outcome: 'unavailable', reason: 'no artifacts are stored for this worker' };
  if (worker.ownerId !== scope.ownerId)
    return { outcome: 'refused', reason: 'the worker belongs to another owner' };
  if (!readable(worker.runId) || (target.runId !== undefined && worker.runId !== target.runId))
    return { outcome: 'refused', reason: 'the worker belongs to another run' };
  if (worker.jobId !== target.jobId) {
    return { outcome: 'refused', reason: `the worker ran job ${worker.jobId}, not job ${target.jobId}` };
  }
  return { outcome: 'allowed', worker };
}
