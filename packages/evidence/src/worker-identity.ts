import type { WorkerMetadata } from './artifact-store.js';
import { EvidenceError } from './evidence-error.js';
import { parseOrThrow, workerMetadataSchema } from './schemas.js';

/**
 * Validates worker metadata on its way into any artifact store and checks that it keeps the
 * worker's identity: an existing worker's owner, run and job never change, and a new worker
 * cannot take a job another worker of the same run already has. Throws
 * `INVALID_ARTIFACT` or `OWNERSHIP_CONFLICT`; returns the parsed metadata.
 *
 * @example
 * ```ts
 * const parsed = await checkWorkerIdentity(metadata, {
 *   existing: (workerId) => store.getWorker(workerId),
 *   siblings: (scope) => store.listWorkers(scope),
 * });
 * ```
 */
export async function checkWorkerIdentity(
  metadata: WorkerMetadata,
  store: {
    /** The stored metadata of a worker, if any. */
    existing(workerId: string): Promise<WorkerMetadata | undefined>;
    /**
     * The workers of one owner's run; a store may return only those of `scope.jobId`, the only
     * ones compared.
     */
    siblings(scope: { ownerId: string; runId: string; jobId: string }): Promise<readonly WorkerMetadata[]>;
  },
): Promise<WorkerMetadata> {
  const parsed = parseOrThrow(workerMetadataSchema, metadata, {
    code: 'INVALID_ARTIFACT',
    what: 'worker metadata',
  }) as WorkerMetadata;
  const existing = await store.existing(parsed.workerId);
  if (existing !== undefined) {
    for (const field of ['ownerId', 'runId', 'jobId'] as const) {
      if (existing[field] !== parsed[field]) {
        throw new EvidenceError(
          'OWNERSHIP_CONFLICT',
          `worker ${parsed.workerId} already has ${field} ${existing[field]}; it cannot become ${parsed[field]}`,
        );
      }
    }
    return parsed;
  }
  const clash = (await store.siblings(parsed)).find(
    (worker) => worker.jobId === parsed.jobId && worker.workerId !== parsed.workerId,
  );
  if (clash) {
    throw new EvidenceError(
      'OWNERSHIP_CONFLICT',
      `job ${parsed.jobId} of run ${parsed.runId} already belongs to worker ${clash.workerId}`,
    );
  }
  return parsed;
}

/**
 * The metadata of a worker that must exist (a tool call, result or thread is being stored for
 * it); throws `ARTIFACT_NOT_FOUND` when the store has none.
 *
 * @example
 * ```ts
 * const worker = await requireWorker(store, 'abc-123');
 * ```
 */
export async function requireWorker(
  store: { getWorker(workerId: string): Promise<WorkerMetadata | undefined> },
  workerId: string,
): Promise<WorkerMetadata> {
  const worker = await store.getWorker(workerId);
  if (!worker) throw new EvidenceError('ARTIFACT_NOT_FOUND', `worker ${workerId} does not exist`);
  return worker;
}
