// Pure: a finished swarm's outcome as plain lines, for where it must read with no worker
// running (the run's memo, the summary of its last event in history). Workflow-safe.

import type { TaskProgress } from '../contracts/progress-contracts.js';
import type { SwarmResult } from '../contracts/swarm-contracts.js';
import { isTaskFailure } from '../contracts/swarm-failure.js';
import { statusMarks } from './progress-table.js';

/** Options of {@link finalReport}. */
export interface FinalReportOptions {
  /** Most tasks listed (failures first); the rest are counted. Default 100. */
  maxTasks?: number;
  /** Most out ids listed per task; the rest are counted. Default 3. */
  maxOutIds?: number;
}

/** Longest reason shown on one line. */
const MAX_REASON = 200;

/**
 * A finished swarm's outcome, one line each: the swarm and its counts, then every task —
 * failures first, each with its reason — with its out ids, then the commands that read more.
 * Bounded whatever the swarm's size: at most `maxTasks` task lines and `maxOutIds` out ids each.
 *
 * @example
 * ```ts
 * finalReport(result, 'repo-health-2026');
 * // ['swarm repo-health failed · 6 tasks: 5 done, 1 failed',
 * //  '✘ licences failed — exit 1 · missing LICENSE in apps/cli',
 * //  '✔ inventory done → out_3f…', …,
 * //  'read an output: wharf outputs show <out id>', 'every output: wharf outputs list --run repo-health-2026',
 * //  'whole result: wharf status repo-health-2026']
 * ```
 */
export function finalReport(
  result: Pick<SwarmResult, 'swarm' | 'status' | 'tasks' | 'supervisor'>,
  workflowId: string,
  options: FinalReportOptions = {},
): string[] {
  const maxTasks = Math.max(1, options.maxTasks ?? 100);
  const maxOutIds = Math.max(0, options.maxOutIds ?? 3);
  const counts = new Map<string, number>();
  for (const task of result.tasks) counts.set(task.status, (counts.get(task.status) ?? 0) + 1);
  const tally = [...counts].map(([status, count]) => `${count} ${status}`).join(', ');
  const lines = [
    `swarm ${result.swarm} ${result.status} · ${result.tasks.length} task${result.tasks.length === 1 ? '' : 's'}${tally === '' ? '' : `: ${tally}`}`,
  ];
  if (result.supervisor?.error !== undefined)
    lines.push(`supervisor: no answer — ${oneLine(result.supervisor.error)}`);
  const ordered = [
    ...result.tasks.filter(isTaskFailure),
    ...result.tasks.filter((task) => !isTaskFailure(task)),
  ];
  for (const task of ordered.slice(0, maxTasks)) lines.push(taskLine(task, maxOutIds));
  if (ordered.length > maxTasks) lines.push(`… and ${ordered.length - maxTasks} more tasks`);
  lines.push(
    'read an output: wharf outputs show <out id>',
    `every output: wharf outputs list --run ${workflowId}`,
    `whole result: wharf status ${workflowId}`,
  );
  return lines;
}

/**
 * `✘ licences failed — exit 1 · missing LICENSE → out_a, out_b (+3 more)`; a loop too wide to
 * list its out ids names its manifest.
 */
function taskLine(task: TaskProgress, maxOutIds: number): string {
  const instances = task.instances.total > 1 ? ` ${task.instances.done}/${task.instances.total}` : '';
  const reason = task.reason === undefined ? '' : ` — ${oneLine(task.reason)}`;
  const shown = task.outIds.slice(0, maxOutIds);
  const more = task.outIds.length - shown.length;
  const outs =
    task.outIds.length === 0
      ? task.manifest === undefined
        ? ''
        : ` → ${task.outCount ?? 0} outputs listed by ${task.manifest} (wharf outputs refs ${task.manifest})`
      : ` → ${shown.join(', ')}${more > 0 ? `${shown.length > 0 ? ' ' : ''}(+${more} more)` : ''}`;
  const reused = task.reused === undefined ? '' : ' (reused)';
  return `${statusMarks[task.status]} ${task.task} ${task.status}${instances}${reused}${reason}${outs}`;
}

function oneLine(text: string): string {
  const line = text.replace(/\s*\n\s*/g, ' ').trim();
  return line.length > MAX_REASON ? `${line.slice(0, MAX_REASON - 1)}…` : line;
}
