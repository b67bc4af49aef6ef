// Pure: renders swarm progress as markdown for the Temporal Web UI's "current details".
import type { SwarmProgress, TaskProgress } from '../shared/types.js';

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
 * Formats a byte count for people: `10.2 MB`, `512 B`.
 *
 * @example
 * ```ts
 * formatBytes(10_695_475); // '10.2 MB'
 * ```
 */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/**
 * The markdown progress table shown as the workflow's current details in the Web UI.
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
  const lines = [
    `**${progress.swarm}** · ${progress.status} · step ${progress.step}${counts}`,
    '',
    '| task | status | instances | bytes | outputs | note |',
    '|---|---|---|---|---|---|',
  ];
  for (const task of progress.tasks) {
    const outputs =
      task.outIds.length === 0
        ? ''
        : task.outIds.slice(0, 3).join(', ') + (task.outIds.length > 3 ? ', …' : '');
    const note = task.reason ?? (task.waitingFor.length > 0 ? `waits for ${task.waitingFor.join(', ')}` : '');
    lines.push(
      `| ${task.task} | ${statusMarks[task.status]} ${task.status} | ${task.instances.done}/${task.instances.total} | ${formatBytes(task.bytesCaptured)} | ${outputs} | ${escapeCell(note)} |`,
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
      loop?: { count: number } | undefined;
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
      `| ${name} | ${kind} | ${task.depends_on.join(', ')} | ${task.loop ? `×${task.loop.count}` : ''} | ${escapeCell(task.description ?? '')} |`,
    );
  }
  return lines.join('\n');
}

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}
