// Pure: renders swarm progress as markdown for the Temporal Web UI's "current details".
import { formatBytes } from '@wharf/common';
import type { SwarmProgress, TaskProgress } from '../contracts/progress-contracts.js';
import { isTaskFailure } from '../contracts/swarm-failure.js';
import { formatUsage, swarmUsage } from './agent-usage.js';

/** One character per task status, for tables and terminals. */
export const statusMarks: Readonly<Record<TaskProgress['status'], string>> = {
  pending: '·',
  waiting: '…',
  running: '▶',
  done: '✔',
  failed: '✘',
  skipped: '↷',
  cancelled: '⊘',
};

/**
 * The markdown progress table shown as the workflow's current details in the Web UI. Failed
 * and cancelled tasks come first, each with its reason, above the table (which lists them
 * first too), so a narrow pane shows what went wrong before anything else.
 *
 * @example
 * ```ts
 * setCurrentDetails(renderProgressTable(progress));
 * ```
 */
export function renderProgressTable(progress: SwarmProgress): string {
  const counts = (['done', 'skipped', 'failed', 'cancelled'] as const)
    .map((status) => [status, progress.tasks.filter((task) => task.status === status).length] as const)
    .filter(([, count]) => count > 0)
    .map(([status, count]) => ` · ${count} ${status}`)
    .join('');
  const failures = progress.tasks.filter(isTaskFailure);
  // Agent tasks' model usage: a total in the title and a column, only when a model was called.
  const usage = swarmUsage(progress.tasks);
  const total = usage === undefined ? '' : ` · ${formatUsage(usage)}`;
  const lines = [`**${progress.swarm}** · ${progress.status} · step ${progress.step}${counts}${total}`, ''];
  if (failures.length > 0) {
    lines.push(`**Failures (${failures.length} of ${progress.tasks.length} tasks):**`, '');
    for (const task of failures) {
      lines.push(
        `- ${statusMarks[task.status]} **${task.task}** ${task.status}${task.reason ? ` — ${escapeLine(task.reason)}` : ''}`,
      );
    }
    lines.push('');
  }
  lines.push(
    usage === undefined
      ? '| task | status | instances | bytes | outputs | note |'
      : '| task | status | instances | bytes | tokens | outputs | note |',
    usage === undefined ? '|---|---|---|---|---|---|' : '|---|---|---|---|---|---|---|',
  );
  const ordered = [...failures, ...progress.tasks.filter((task) => !isTaskFailure(task))];
  for (const task of ordered) {
    const outputs =
      task.outIds.length === 0
        ? ''
        : task.outIds.slice(0, 3).join(', ') + (task.outIds.length > 3 ? ', …' : '');
    const note =
      task.reason ??
      (task.waitingFor.length > 0
        ? `waits for ${task.waitingFor.join(', ')}`
        : task.reused === undefined
          ? ''
          : 'reused from the run it re-runs');
    lines.push(
      `| ${task.task} | ${statusMarks[task.status]} ${task.status} | ${task.instances.done}/${task.instances.total} | ${formatBytes(task.bytesCaptured)} |${usage === undefined ? '' : ` ${formatUsage(task.usage)} |`} ${outputs} | ${escapeCell(note)} |`,
    );
  }
  return lines.join('\n');
}

/**
 * The static task table shown as the workflow's static details (what the swarm will run).
 *
 * @example
 * ```ts
 * const details = renderTaskTable(definition);
 * ```
 */
export function renderTaskTable(definition: {
  name: string;
  version: string;
  tasks: Record<
    string,
    {
      description?: string | undefined;
      script?: unknown;
      agent?: string | undefined;
      depends_on: string[];
      loop?: { count?: number | undefined; over?: string | undefined } | undefined;
    }
  >;
}): string {
  const lines = [
    `**Swarm ${definition.name}** v${definition.version}`,
    '',
    '| task | kind | depends on | loop | description |',
    '|---|---|---|---|---|',
  ];
  for (const [name, task] of Object.entries(definition.tasks)) {
    const kind = task.script !== undefined ? 'script' : `agent ${task.agent ?? ''}`;
    lines.push(
      `| ${name} | ${kind} | ${task.depends_on.join(', ')} | ${task.loop === undefined ? '' : task.loop.count === undefined ? `each of ${escapeCell(task.loop.over ?? '')}` : `×${task.loop.count}`} | ${escapeCell(task.description ?? '')} |`,
    );
  }
  return lines.join('\n');
}

/** Markdown-inert one-liner: no line breaks, no emphasis or HTML from a task's stderr. */
function escapeLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').replace(/([*_`<>[\]\\])/g, '\\$1');
}

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}
