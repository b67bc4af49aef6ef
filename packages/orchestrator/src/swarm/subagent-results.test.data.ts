// Test data: the result of a subagent that succeeded, as the swarm tests fold it.
import type { SubagentResult } from '../shared/types.js';

/**
 * A subagent that succeeded with one output `outId` of 1 byte, its compact payload the out id.
 *
 * @example
 * ```ts
 * run.fold(instances, [okResult('out_a'), okResult('out_b', 'a\nb\n')], now);
 * ```
 */
export function okResult(outId: string, preview = ''): SubagentResult {
  return {
    status: 'ok',
    outputs: [{ outId }],
    compact: outId,
    bytes: 1,
    exitCode: 0,
    durationMs: 1,
    preview,
  };
}
