import { captureProcess, type SpawnServer } from '@wharf/stdio-limits';
import { itemEnvironment } from './item-log.js';

/** What the ceiling's script activity runs (see {@link ceilingActivities}). */
export interface CeilingScript {
  /** The shell and the script: the headline fan-out's item script. */
  shell: string;
  script: string;
  /** Starts it, as Wharf's worker and the LangGraph.js side start theirs. */
  spawner: SpawnServer;
}

/**
 * The ceiling's activities: `noop` does nothing, so that what it costs is Temporal's alone;
 * `script` runs the item's script (given the instance in `WHARF_INSTANCE`) with
 * `captureProcess`'s default limits through the spawner and returns nothing, as a Temporal user
 * who wrote the fan-out by hand would: Temporal's cost plus the script's, with none of Wharf's
 * data plane (no output store, no evidence, no spill, no sandbox).
 *
 * @example
 * ```ts
 * const activities = ceilingActivities({ shell: 'bash', script: 'echo "$WHARF_INSTANCE"', spawner });
 * await Worker.create({ taskQueue, workflowBundle, activities });
 * ```
 */
export function ceilingActivities(script?: CeilingScript) {
  return {
    async noop(): Promise<void> {},
    async script(instance: number): Promise<void> {
      if (script === undefined) throw new Error('this ceiling worker runs no script');
      const capture = await captureProcess(script.shell, {
        args: ['-c', script.script],
        env: itemEnvironment(instance),
        spawner: script.spawner,
      });
      if (capture.exitCode !== 0) throw new Error(`item ${instance} exited ${capture.exitCode}`);
    },
  };
}

/** The activities' type, for the workflow's `proxyActivities`. */
export type CeilingActivities = ReturnType<typeof ceilingActivities>;
