import type { SwarmResult } from '@wharf/orchestrator';
import { exitCodes } from './cli-error.js';

/**
 * How `pnpm demo` ends after its swarm: exit 0 when it completed; otherwise exit 1 (the CLI's
 * `SWARM_FAILED`) with one line on stderr saying so, naming the tasks that did not complete.
 *
 * @example
 * ```ts
 * const ending = demoEnding(result);
 * if (ending.line !== undefined) console.error(ending.line);
 * process.exitCode = ending.exitCode;
 * ```
 */
export function demoEnding(result: Pick<SwarmResult, 'status' | 'tasks'>): {
  exitCode: number;
  line?: string;
} {
  if (result.status === 'completed') return { exitCode: 0 };
  const failed = result.tasks
    .filter((task) => task.status === 'failed' || task.status === 'cancelled')
    .map((task) => task.task);
  return {
    exitCode: exitCodes.SWARM_FAILED,
    line: `wharf demo: the swarm ${result.status}${failed.length === 0 ? '' : ` (${failed.join(', ')} did not complete)`}: exit ${exitCodes.SWARM_FAILED}`,
  };
}
