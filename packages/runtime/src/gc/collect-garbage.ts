import type { ArtifactStore } from '@wharf/evidence';
import { type OutputStore, planRetention, type RetentionCandidate } from '@wharf/output-store';
import type { GcPolicy } from '@wharf/swarm';
import { subagentDefinitionContentType } from '@wharf/swarm';

/** Options of {@link collectGarbage}. */
export interface CollectGarbageOptions {
  store: OutputStore;
  /** The evidence of a run is removed with the last of its outputs. */
  artifacts?: ArtifactStore;
  policy: GcPolicy;
  /** Report what would be removed, remove nothing. */
  dryRun?: boolean;
  /** Epoch milliseconds (default `Date.now()`). */
  now?: number;
}

/** One output {@link collectGarbage} removed (or would remove). */
export interface RemovedOutput {
  outId: string;
  runId: string;
  sizeBytes: number;
  createdAt: string;
  reason: 'expired' | 'deleted' | 'evicted';
}

/** What {@link collectGarbage} removed (or, with `dryRun`, would remove). */
export interface GcReport {
  dryRun: boolean;
  outputs: RemovedOutput[];
  freedBytes: number;
  /** Runs left with no output, whose evidence (workers, tool calls, results) went too. */
  runs: { ownerId: string; runId: string; workers: number }[];
  /**
   * Bodies of the store's blob store that no output referenced, older than the policy's
   * `orphanGraceMs` (see `OutputStore.sweepOrphanBodies`), and their bytes.
   */
  orphans: { removed: number; freedBytes: number };
  /** Outputs and bytes the store holds afterwards. */
  kept: { outputs: number; bytes: number };
}

/**
 * Applies a retention policy to an output store and the evidence beside it: plans with
 * `planRetention` (own expiry and age, the run, then oldest first down to the byte cap; a run's
 * stored task definitions stay while the run keeps any other output),
 * deletes each planned output, removes the evidence of every run none of whose outputs
 * remain, then the store's unreferenced bodies older than `orphanGraceMs` (stores that keep
 * bodies outside their records). Reports each removal, so a caller can print what went; with
 * `dryRun` it only plans.
 * An output deleted meanwhile by someone else is not reported.
 *
 * @example
 * ```ts
 * const report = await collectGarbage({ store, artifacts, policy: { olderThanMs: 7 * 86_400_000 } });
 * report.outputs.length; report.freedBytes;
 * ```
 */
export async function collectGarbage(options: CollectGarbageOptions): Promise<GcReport> {
  const { store, policy } = options;
  const dryRun = options.dryRun === true;
  const now = options.now ?? Date.now();
  const candidates: (RetentionCandidate & { ownerId: string; createdAt: string })[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.list({ limit: 1000, ...(cursor === undefined ? {} : { cursor }) });
    for (const record of page.records) {
      candidates.push({
        outId: record.outId,
        runId: record.producer.runId,
        ownerId: record.producer.ownerId,
        sizeBytes: record.sizeBytes,
        createdMs: Date.parse(record.createdAt),
        createdAt: record.createdAt,
        expiresMs: record.expiresAt === undefined ? undefined : Date.parse(record.expiresAt),
        // A run's stored definitions: its script instances read them by ref while it runs.
        ...(record.contentType === subagentDefinitionContentType ? { keepWithRun: true } : {}),
      });
    }
    cursor = page.nextCursor;
  } while (cursor !== undefined);

  const byId = new Map(candidates.map((candidate) => [candidate.outId, candidate]));
  const outputs: RemovedOutput[] = [];
  for (const { outId, reason } of planRetention(candidates, toRetentionPolicy(policy), now)) {
    const candidate = byId.get(outId);
    if (candidate === undefined) continue;
    if (!dryRun && !(await store.delete({ outId }))) continue;
    outputs.push({
      outId,
      runId: candidate.runId,
      sizeBytes: candidate.sizeBytes,
      createdAt: candidate.createdAt,
      reason: reason as RemovedOutput['reason'],
    });
  }

  const removed = new Set(outputs.map((output) => output.outId));
  const runs = new Map<string, { ownerId: string; runId: string; left: number }>();
  for (const candidate of candidates) {
    const key = `${candidate.ownerId}\u0000${candidate.runId}`;
    const run = runs.get(key) ?? { ownerId: candidate.ownerId, runId: candidate.runId, left: 0 };
    if (!removed.has(candidate.outId)) run.left += 1;
    runs.set(key, run);
  }
  const emptied: GcReport['runs'] = [];
  for (const run of runs.values()) {
    if (run.left > 0 || options.artifacts === undefined) continue;
    const workers = await options.artifacts.listWorkers({ ownerId: run.ownerId, runId: run.runId });
    if (!dryRun) for (const worker of workers) await options.artifacts.deleteWorker(worker.workerId);
    emptied.push({ ownerId: run.ownerId, runId: run.runId, workers: workers.length });
  }

  const orphans =
    store.sweepOrphanBodies === undefined
      ? { removed: 0, freedBytes: 0 }
      : await store.sweepOrphanBodies({
          dryRun,
          ...(policy.orphanGraceMs === undefined ? {} : { graceMs: policy.orphanGraceMs }),
        });

  const freedBytes = outputs.reduce((sum, output) => sum + output.sizeBytes, 0);
  const total = candidates.reduce((sum, candidate) => sum + candidate.sizeBytes, 0);
  return {
    dryRun,
    outputs,
    freedBytes,
    runs: emptied,
    orphans,
    kept: { outputs: candidates.length - outputs.length, bytes: total - freedBytes },
  };
}

function toRetentionPolicy(policy: GcPolicy) {
  return {
    ...(policy.olderThanMs === undefined ? {} : { olderThanMs: policy.olderThanMs }),
    ...(policy.maxTotalBytes === undefined ? {} : { maxTotalBytes: policy.maxTotalBytes }),
    ...(policy.runId === undefined ? {} : { runId: policy.runId }),
  };
}
