import { type ServerOptions, withClient } from './connect-server.js';

/** The runs a re-run reads (its memo's `rerunOf.readsFrom`), or why they could not be read. */
export type RerunLineage = { readsFrom: string[] } | { unknown: string };

/**
 * The runs whose outputs `workflowId` reuses, most recent first, as its memo names them
 * (`rerunOf.readsFrom`): none for a run that is no re-run. Temporal is asked once; a server
 * that does not answer (or no such run) gives `unknown` with the reason, never an error, so
 * the caller still shows what the data plane alone holds.
 *
 * @example
 * ```ts
 * const lineage = await rerunLineage('etl-2', { address: '127.0.0.1:7233' });
 * if ('readsFrom' in lineage) lineage.readsFrom; // ['etl-1']
 * ```
 */
export async function rerunLineage(workflowId: string, server: ServerOptions): Promise<RerunLineage> {
  try {
    return await withClient(server, async (wharf) => {
      const description = await wharf.client.workflow.getHandle(workflowId).describe();
      const origin = description.memo?.rerunOf as { readsFrom?: unknown } | undefined;
      const readsFrom = Array.isArray(origin?.readsFrom)
        ? origin.readsFrom.filter((run): run is string => typeof run === 'string')
        : [];
      return { readsFrom };
    });
  } catch (error) {
    return { unknown: error instanceof Error ? error.message : String(error) };
  }
}
