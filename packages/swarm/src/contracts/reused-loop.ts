// Pure: how a re-run tells a loop reused whole from one reused instance by instance.
// Workflow-safe.

import type { SubagentResult } from './agent-contracts.js';
import type { ReusedLoop } from './swarm-contracts.js';

/** Loops with more instances than this are reused whole, as a {@link ReusedLoop}. */
export const REUSED_WHOLE_FROM = 64;

/**
 * True when a task's reused results are a {@link ReusedLoop} (its summary and manifest), not one
 * result per instance.
 *
 * @example
 * ```ts
 * isReusedLoop({ loop: { total: 500, manifest: 'out_m', bytes: 0, outCount: 500, outIds: [] } }); // true
 * isReusedLoop([okResult]); // false
 * ```
 */
export function isReusedLoop(reused: SubagentResult[] | ReusedLoop | undefined): reused is ReusedLoop {
  return reused !== undefined && !Array.isArray(reused);
}
