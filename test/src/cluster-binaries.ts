import { findClusterBinaries } from '@wharf/cli/cluster';

/**
 * Why the native cluster's binaries are not built, said once as a warning so that a skipped
 * journey never passes silently; `undefined` when they are there.
 *
 * @example
 * ```ts
 * const notBuilt = clusterNotBuilt('faults');
 * describe.skipIf(notBuilt !== undefined)('the cluster', () => { … });
 * ```
 */
export function clusterNotBuilt(label: string): string | undefined {
  try {
    findClusterBinaries(process.env);
    return undefined;
  } catch (error) {
    const reason = (error as Error).message;
    console.warn(`[${label}] skipped: the cluster's binaries are not built (${reason})`);
    return reason;
  }
}
