import { formatBytes, formatUsage, type SwarmProgress, statusMarks } from '@wharf/orchestrator';

/**
 * One line per task: mark, name, status, instances, bytes captured, elapsed, model usage (agent
 * tasks), note.
 *
 * @example
 * ```ts
 * for (const line of progressLines(progress, Date.now())) console.log(line);
 * ```
 */
export function progressLines(progress: SwarmProgress, now: number): string[] {
  const width = Math.max(4, ...progress.tasks.map((task) => task.task.length));
  return progress.tasks.map((task) => {
    const elapsed =
      task.startedAt === undefined ? '' : `${(((task.endedAt ?? now) - task.startedAt) / 1000).toFixed(1)}s`;
    const instances = task.instances.total > 1 ? ` ${task.instances.done}/${task.instances.total}` : '';
    const note = task.reason ?? (task.waitingFor.length > 0 ? `waits for ${task.waitingFor.join(', ')}` : '');
    return [
      statusMarks[task.status],
      task.task.padEnd(width),
      `${task.status}${instances}`.padEnd(14),
      formatBytes(task.bytesCaptured).padStart(9),
      elapsed.padStart(7),
      ...(task.usage === undefined ? [] : [formatUsage(task.usage)]),
      note,
    ]
      .join('  ')
      .trimEnd();
  });
}

/**
 * Lines for a log that is not a terminal: one line each time a task changes status.
 *
 * @example
 * ```ts
 * const seen = new Map<string, string>();
 * for (const line of changedLines(progress, seen)) console.log(line);
 * ```
 */
export function changedLines(progress: SwarmProgress, seen: Map<string, string>): string[] {
  const lines: string[] = [];
  for (const task of progress.tasks) {
    const key = `${task.status}:${task.instances.done}`;
    if (seen.get(task.task) === key) continue;
    seen.set(task.task, key);
    if (task.status === 'pending') continue;
    const detail = [
      task.instances.total > 1 ? `${task.instances.done}/${task.instances.total}` : '',
      task.bytesCaptured > 0 ? formatBytes(task.bytesCaptured) : '',
      task.outIds.length > 0 ? task.outIds.join(',') : '',
      task.reason ?? '',
    ]
      .filter(Boolean)
      .join(' ');
    lines.push(`${task.task}: ${task.status}${detail ? ` ${detail}` : ''}`);
  }
  return lines;
}
