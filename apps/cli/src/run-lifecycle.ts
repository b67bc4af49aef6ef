import type { SwarmResult } from '@wharf/orchestrator';
import type { Embedded } from '@wharf/orchestrator/embedded';
import { awaitRun } from './await-run.js';
import { CliError } from './cli-error.js';
import { InterruptWatch, RUN_DRAIN_MS, RUN_EXIT_MARGIN_MS } from './interrupt.js';
import { type CliIo, printJson } from './output.js';
import { printResult } from './print-result.js';
import { resumeHint } from './resume-hint.js';
import { webUiNote } from './run-hints.js';
import { recordRunTasks } from './run-record.js';
import { type RunWorkerOptions, startRunWorker } from './start-run-worker.js';

/** Options of {@link runToEnd}. */
export interface RunLifecycleOptions {
  /** The worker this process gives the run: the data directory, the server, the task queue. */
  worker: RunWorkerOptions;
  /** Show live progress (`--follow`); with `json`, one JSON line per run event instead. */
  follow: boolean;
  /** Print the result as JSON. */
  json: boolean;
  /** What is being started, for an interruption before it started (`the swarm`, `the re-run`). */
  starting: string;
  /** Print how to give the run a worker again (`wharf resume …`) once it started. */
  resumeHint: boolean;
  /** A dev server the command started before the worker (`wharf resume`): it stops with it too. */
  startedServer?: boolean;
}

/** The run a command started (or found) on the worker's server, as {@link runToEnd} follows it. */
export interface StartedRun {
  workflowId: string;
  /** The run the Web UI link shows; without it, the link lists the workflow id's runs. */
  firstExecutionRunId?: string | undefined;
  /** Lines said (on stderr) once it started, given its Web UI link. */
  announce(link: string | undefined): readonly string[];
  /** The run has approval gates (its child runs' too): each is announced, with its command, when it opens. */
  gated?: boolean;
  /** Its task names, recorded in the data directory (`recordRunTasks`) for a later `rerun --from`. */
  tasks?: readonly string[];
  /** Fields `--json` prints before the result's own. */
  json?: Readonly<Record<string, unknown>>;
}

/**
 * The life of a run `wharf run`, `rerun` and `resume` give a worker in this process, in one
 * place: listen for Ctrl-C (`InterruptWatch`), start the worker (`startRunWorker`), start or
 * find the run (`start`, the command's own part), say where it runs and how to reach it, follow
 * it when asked, wait for its result (an interruption ends the wait with exit 130 or 143 once
 * the worker drained), print the result, stop the worker, and end with exit 1 when the swarm did
 * not complete ({@link failUnlessCompleted}).
 *
 * @example
 * ```ts
 * await runToEnd({ worker: { dataDir }, follow, json, starting: 'the swarm', resumeHint: true }, io, async (embedded) => {
 *   const { workflowId, firstExecutionRunId } = await embedded.wharf.startSwarm(definition, inputs, { ownerId });
 *   return { workflowId, firstExecutionRunId, announce: (link) => [`wharf: started ${workflowId}`] };
 * });
 * ```
 */
export async function runToEnd(
  options: RunLifecycleOptions,
  io: CliIo,
  start: (embedded: Embedded) => Promise<StartedRun>,
): Promise<SwarmResult> {
  const watch = new InterruptWatch({ io, drainMs: RUN_DRAIN_MS, exitMs: RUN_DRAIN_MS + RUN_EXIT_MARGIN_MS });
  try {
    const embedded = await startRunWorker(options.worker, io);
    watch.setDataRoot(embedded.data.root);
    try {
      if (watch.signal !== undefined) throw watch.error(`interrupted before ${options.starting} started`);
      const run = await start(embedded);
      if (run.tasks !== undefined) await recordRunTasks(options.worker.dataDir, run.workflowId, run.tasks);
      const link = embedded.workflowUrl(run.workflowId, run.firstExecutionRunId);
      for (const line of run.announce(link)) io.err(line);
      if (link === undefined) io.err(webUiNote(embedded.address));
      if (options.resumeHint) io.err(resumeHint(run.workflowId, embedded, options.worker.dataDir));
      const startedServer = embedded.startedServer || options.startedServer === true;
      const result = await awaitRun({ ...placeOf(embedded), startedServer }, run.workflowId, {
        watch,
        dataDir: options.worker.dataDir,
        link,
        follow: options.follow && !options.json,
        events: options.follow && options.json,
        gated: run.gated === true,
        store: embedded.data.store,
        io,
      });
      const printed = { workflowId: run.workflowId, ...run.json, url: link, ...result };
      // After event lines, the result is one line too: the output stays JSON Lines.
      if (options.json && options.follow) io.out(JSON.stringify(printed));
      else if (options.json) printJson(io, printed);
      else printResult(io, run.workflowId, result, link);
      if (startedServer) {
        io.err(
          'wharf: the dev server stops with this command; run `wharf dev` in another terminal to keep the Web UI.',
        );
      }
      failUnlessCompleted(result);
      return result;
    } finally {
      await embedded.stop();
    }
  } finally {
    watch.dispose();
  }
}

/** What {@link awaitRun} reads of the worker. */
function placeOf(embedded: Embedded): Pick<Embedded, 'wharf' | 'address' | 'taskQueue' | 'startedServer'> {
  const { wharf, address, taskQueue, startedServer } = embedded;
  return { wharf, address, taskQueue, startedServer };
}

/**
 * A swarm that did not complete ends its command with exit 1 (`SWARM_FAILED`), naming how many
 * tasks did not complete.
 *
 * @example
 * ```ts
 * failUnlessCompleted(result); // throws CliError SWARM_FAILED unless result.status is 'completed'
 * ```
 */
export function failUnlessCompleted(result: SwarmResult): void {
  if (result.status === 'completed') return;
  throw new CliError(
    'SWARM_FAILED',
    `swarm ${result.swarm} ${result.status}: ${result.metrics.failedCount} task(s) did not complete`,
  );
}
