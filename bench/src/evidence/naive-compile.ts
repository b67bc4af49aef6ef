import type { FsArtifactStore } from '@wharf/evidence';

/**
 * The "read everything, then cut" approach the compiler replaces: every output read whole,
 * its last 256 bytes kept, each worker's text cut to an equal share of `budget`. Returns the
 * characters emitted.
 *
 * @example
 * ```ts
 * const emitted = await naiveCompile(store, 'run-1', 32_000);
 * ```
 */
export async function naiveCompile(store: FsArtifactStore, runId: string, budget: number): Promise<number> {
  let emitted = 0;
  const workers = await store.listWorkers({ ownerId: 'bench', runId });
  const share = Math.floor(budget / Math.max(1, workers.length));
  for (const worker of workers) {
    let text = '';
    for (const call of await store.listToolCalls(worker.workerId)) {
      const body = await store.readToolOutput(worker.workerId, call.seq);
      text += new TextDecoder().decode(body.subarray(Math.max(0, body.length - 256)));
    }
    emitted += text.slice(-share).length;
  }
  return emitted;
}
