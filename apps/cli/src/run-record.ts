import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Where the data directory keeps what a command needs of its runs before any server answers. */
function recordPath(dataDir: string, workflowId: string): string {
  return join(dataDir, 'runs', `${encodeURIComponent(workflowId)}.json`);
}

/**
 * Records the task names of a run a command of this data directory started (`wharf run`,
 * `rerun`), in `<data-dir>/runs/<id>.json` (0600): what `wharf rerun --from` checks a task
 * against before any server starts. Best effort: a record that cannot be written is skipped.
 *
 * @example
 * ```ts
 * await recordRunTasks('.wharf', 'etl-2026', ['fetch', 'report']);
 * ```
 */
export async function recordRunTasks(
  dataDir: string,
  workflowId: string,
  tasks: readonly string[],
): Promise<void> {
  try {
    await mkdir(join(dataDir, 'runs'), { recursive: true, mode: 0o700 });
    await writeFile(recordPath(dataDir, workflowId), `${JSON.stringify({ workflowId, tasks })}\n`, {
      mode: 0o600,
    });
  } catch {
    // Only a shortcut: without it the run's definition is read from its server.
  }
}

/**
 * The task names {@link recordRunTasks} recorded for a run of this data directory, or undefined.
 *
 * @example
 * ```ts
 * await recordedRunTasks('.wharf', 'etl-2026'); // ['fetch', 'report']
 * ```
 */
export async function recordedRunTasks(dataDir: string, workflowId: string): Promise<string[] | undefined> {
  try {
    const record = JSON.parse(await readFile(recordPath(dataDir, workflowId), 'utf8')) as {
      workflowId?: unknown;
      tasks?: unknown;
    };
    return record.workflowId === workflowId &&
      Array.isArray(record.tasks) &&
      record.tasks.every((task) => typeof task === 'string')
      ? (record.tasks as string[])
      : undefined;
  } catch {
    return undefined;
  }
}
