import type { Client } from '@temporalio/client';
import {
  decodeFromPayloadsAtIndex,
  extstoreInboundOptions,
  visit,
  walkGetWorkflowExecutionHistoryResponse,
} from '@temporalio/common/lib/internal-non-workflow/index.js';
import { type SwarmDefinition, type SwarmWorkflowInput, WharfOrchestratorError } from '@wharf/swarm';

/**
 * The definition a swarm run runs: the input of its latest run's first history event, read as
 * one page of one event (a payload stored outside history is fetched back). No worker is asked.
 * A workflow that is no swarm run is a typed error (code `INVALID_REQUEST`); an unknown id is
 * Temporal's not-found error.
 *
 * @example
 * ```ts
 * Object.keys((await readSwarmDefinition(wharf.client, 'etl-2026')).tasks); // ['fetch', 'report']
 * ```
 */
export async function readSwarmDefinition(client: Client, workflowId: string): Promise<SwarmDefinition> {
  const response = await client.workflowService.getWorkflowExecutionHistory({
    namespace: client.options.namespace,
    execution: { workflowId },
    maximumPageSize: 1,
  });
  const { loadedDataConverter } = client.options;
  await visit(
    response,
    walkGetWorkflowExecutionHistoryResponse,
    extstoreInboundOptions(loadedDataConverter.externalStorage),
  );
  const started = response.history?.events?.[0]?.workflowExecutionStartedEventAttributes;
  const input =
    started === null || started === undefined
      ? undefined
      : await decodeFromPayloadsAtIndex<SwarmWorkflowInput | undefined>(
          loadedDataConverter,
          0,
          started.input?.payloads as never,
        );
  if (input?.definition?.tasks === undefined)
    throw new WharfOrchestratorError('INVALID_REQUEST', `${workflowId} is not a swarm run`);
  return input.definition;
}
