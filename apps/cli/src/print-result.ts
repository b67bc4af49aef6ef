import { formatBytes, type SwarmResult } from '@wharf/orchestrator';
import type { CliIo } from './output.js';
import { terminalSafeLine } from './terminal-safe.js';

/**
 * Prints a finished swarm's result for people: its tasks, out ids, totals, the supervisor's
 * answer (`wharf run`, `rerun` and `resume` end with it).
 *
 * @example
 * ```ts
 * printResult(io, workflowId, result, link);
 * ```
 */
export function printResult(
  io: CliIo,
  workflowId: string,
  result: SwarmResult,
  link: string | undefined,
): void {
  io.out(`\nSwarm ${result.swarm}: ${result.status} (${workflowId})`);
  for (const task of result.tasks) {
    const outs =
      task.outIds.length > 0
        ? ` → ${task.outIds.join(', ')}`
        : task.manifest === undefined
          ? ''
          : ` → ${task.outCount ?? 0} outputs listed by ${task.manifest} (wharf outputs refs ${task.manifest})`;
    io.out(
      `  ${task.task}: ${task.status}${task.reason ? ` (${terminalSafeLine(task.reason)})` : ''}${outs}`,
    );
  }
  const { metrics } = result;
  io.out(
    `\nCaptured ${formatBytes(metrics.totalBytes)} across ${metrics.taskCount} tasks, ${notDone(result)}` +
      (metrics.continuedAsNew > 0 ? `, continued as new ${metrics.continuedAsNew}×` : ''),
  );
  if (metrics.context !== undefined) {
    const pruned = metrics.context.lastPrunedAt === null ? 'never pruned' : 'pruned by post_task hooks';
    io.out(
      `Context pool: ${metrics.context.taskCount} output${metrics.context.taskCount === 1 ? '' : 's'}, ${formatBytes(metrics.context.totalBytes)}, ${metrics.context.truncatedCount} shown cut, ${pruned}`,
    );
  }
  if (result.supervisor?.error !== undefined) io.out(`\nSupervisor: no answer — ${result.supervisor.error}`);
  else if (result.supervisor !== undefined) io.out(`\nSupervisor:\n${result.supervisor.answer}`);
  io.out(`\nRead an output: wharf outputs show <outId>`);
  if (link !== undefined) io.out(`Web UI: ${link}`);
}

/** `3 not done (1 skipped)`: every task that did not end done, skipped ones counted apart. */
function notDone(result: SwarmResult): string {
  const open = result.tasks.filter((task) => task.status !== 'done');
  const skipped = open.filter((task) => task.status === 'skipped').length;
  return `${open.length} not done${skipped > 0 ? ` (${skipped} skipped)` : ''}`;
}
