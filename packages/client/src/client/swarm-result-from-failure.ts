import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { SwarmResult } from '@wharf/swarm';
import { swarmFailedErrorType } from '@wharf/swarm';

/**
 * The {@link SwarmResult} a failed swarm's workflow carries: its `WharfSwarmFailed` failure's
 * first detail. `undefined` for any other error (a terminated run, a workflow bug, a timeout),
 * which callers rethrow.
 *
 * @example
 * ```ts
 * try {
 *   return await handle.result();
 * } catch (error) {
 *   const result = swarmResultFromFailure(error);
 *   if (result === undefined) throw error;
 *   return result;
 * }
 * ```
 */
export function swarmResultFromFailure(error: unknown): SwarmResult | undefined {
  if (!(error instanceof WorkflowFailedError)) return undefined;
  const cause = error.cause;
  if (!(cause instanceof ApplicationFailure) || cause.type !== swarmFailedErrorType) return undefined;
  const result = cause.details?.[0];
  if (typeof result !== 'object' || result === null) return undefined;
  const candidate = result as Partial<SwarmResult>;
  if (
    typeof candidate.swarm !== 'string' ||
    !Array.isArray(candidate.tasks) ||
    candidate.status === undefined
  )
    return undefined;
  return result as SwarmResult;
}
