import type { ArtifactStore, ToolCallRecord, WorkerMetadata } from '@wharf/evidence';
import { OutputStoreArtifactStore } from '@wharf/evidence/output-store';
import type { OutputRecord, OutputStore } from '@wharf/output-store';

/** One worker's evidence kept beside the store (the default data plane's `artifacts/`). */
export interface WorkerEvidence {
  kind: 'evidence';
  worker: WorkerMetadata;
  /** Its tool calls, each with the size of its raw output and the id it is stored under. */
  toolCalls: ToolCallRecord[];
}

/**
 * True when the evidence is kept in the output store itself (a configured `WHARF_STORE`):
 * its records then come with the store's listing.
 *
 * @example
 * ```ts
 * if (!evidenceInStore(data.artifacts, data.store)) console.log(await runEvidence(data.artifacts, runs));
 * ```
 */
export function evidenceInStore(artifacts: ArtifactStore, store: OutputStore): boolean {
  return artifacts instanceof OutputStoreArtifactStore && artifacts.outputs === store;
}

/**
 * The runs a page of outputs belongs to, in the order they first appear; with `run` (the
 * listing's `--run`) and no output of it, that run of the default owner.
 *
 * @example
 * ```ts
 * runsOf(page.records); // [{ ownerId: 'default', runId: 'release-1' }]
 * ```
 */
export function runsOf(records: readonly OutputRecord[], run?: string): { ownerId: string; runId: string }[] {
  const runs = new Map<string, { ownerId: string; runId: string }>();
  for (const { producer } of records) {
    runs.set(`${producer.ownerId}\u0000${producer.runId}`, {
      ownerId: producer.ownerId,
      runId: producer.runId,
    });
  }
  if (runs.size === 0 && run !== undefined) runs.set(run, { ownerId: 'default', runId: run });
  return [...runs.values()];
}

/**
 * Every worker's evidence of these runs, read from an artifact store kept beside the output
 * store: metadata and tool calls (their outputs are not read).
 *
 * @example
 * ```ts
 * const evidence = await runEvidence(data.artifacts, runsOf(records));
 * ```
 */
export async function runEvidence(
  artifacts: ArtifactStore,
  runs: readonly { ownerId: string; runId: string }[],
): Promise<WorkerEvidence[]> {
  const evidence: WorkerEvidence[] = [];
  for (const run of runs) {
    for (const worker of await artifacts.listWorkers(run)) {
      evidence.push({ kind: 'evidence', worker, toolCalls: await artifacts.listToolCalls(worker.workerId) });
    }
  }
  return evidence;
}

/**
 * Lines for `outputs list`: one per worker (run, job, status), one per tool call under it (its
 * stored id, output size, tool and exit code).
 *
 * @example
 * ```ts
 * for (const line of evidenceLines(evidence)) io.out(line);
 * ```
 */
export function evidenceLines(evidence: readonly WorkerEvidence[]): string[] {
  return evidence.flatMap(({ worker, toolCalls }) => [
    `${worker.workerId}  ${worker.runId}/${worker.jobId}  worker ${worker.status}`,
    ...toolCalls.map(
      (call) =>
        `  ${call.artifactId}  ${String(call.bytes).padStart(10)} B  ${call.toolName}${call.exitCode === null ? '' : ` exit ${call.exitCode}`}`,
    ),
  ]);
}
