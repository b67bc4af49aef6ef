import { resolve } from 'node:path';
import type { SwarmResult } from '@wharf/orchestrator';
import { gatedTasks } from '../gated-tasks.js';
import { loadSwarm } from '../load-swarm.js';
import { definitionWithModels, type ModelOptions, modelChoice } from '../model-options.js';
import type { CliIo } from '../output.js';
import { parseInputs } from '../parse-inputs.js';
import { refuseMissingInputs } from '../refuse-missing-inputs.js';
import { reportQueueWorkers } from '../report-queue-workers.js';
import { runToEnd } from '../run-lifecycle.js';

/** Options of {@link runCommand}. */
export interface RunOptions extends ModelOptions {
  input: string[];
  follow: boolean;
  json: boolean;
  dataDir: string;
  address?: string;
  owner: string;
  /** Directory scripts run in (default: the current one). */
  workdir?: string;
  /** When only tasks waiting on `†input.*` remain, wait this long for `wharf input`. */
  waitForInputsMs?: number;
  /** Tools registered with the workers (`--tools`, `WHARF_TOOLS`); undefined when not known. */
  tools?: readonly string[] | undefined;
  /** Most swarm files `swarm:` tasks may nest below this one (`--max-swarm-depth`, default 4). */
  maxSwarmDepth?: number | undefined;
  /** Most subagents at once: the in-process worker's activities and the swarm's tasks in flight. */
  concurrency?: number;
  /** Web UI base URL of the server at `address` (`--ui-url`, `WHARF_UI_URL`), for the run's link. */
  uiUrl?: string | undefined;
  /** The swarm's task queue (`--task-queue`); default one of this process's own. */
  taskQueue?: string | undefined;
  /** False (`--no-worker`): no worker in this process, the queue's own workers run the swarm. */
  worker?: boolean;
}

/**
 * `wharf run`: validates the swarm, starts it (with an in-process worker and, when no
 * Temporal server answers, a local dev server), follows it if asked, and prints the result,
 * the out ids and the Web UI link (the run's life is `runToEnd`'s). Ctrl-C (or SIGTERM) says at
 * once that the swarm goes on without this command and how to reach it, stops the worker within
 * `RUN_DRAIN_MS`, and ends with exit 130 (143); a second Ctrl-C exits at once (see
 * `InterruptWatch`). A swarm that did not complete ends it with exit 1.
 */
export async function runCommand(file: string, options: RunOptions, io: CliIo): Promise<SwarmResult> {
  // --model and WHARF_MODEL rewrite the definition: the models travel with the swarm.
  const models = modelChoice(options, process.env);
  // Its own worker offers the built-ins only (and what --tools names): an unknown tool is refused
  // here, before anything starts; a cluster's workers (--no-worker) check theirs.
  const ownWorker = options.worker !== false;
  const loaded = await loadSwarm(file, {
    maxDepth: options.maxSwarmDepth,
    tools: options.tools ?? (ownWorker ? [] : undefined),
  });
  const definition = definitionWithModels(loaded, models, { check: true });
  const inputs = parseInputs(options.input);
  refuseMissingInputs(definition, inputs, options.waitForInputsMs);
  const worker = {
    dataDir: options.dataDir,
    address: options.address,
    uiUrl: options.uiUrl,
    concurrency: options.concurrency,
    summarizer: models.summarizer,
    taskQueue: options.taskQueue,
    worker: options.worker,
  };
  const lifecycle = {
    worker,
    follow: options.follow,
    json: options.json,
    starting: 'the swarm',
    resumeHint: options.worker !== false,
  };
  return runToEnd(lifecycle, io, async (embedded) => {
    if (options.worker === false) await reportQueueWorkers(embedded, io);
    const { workflowId, firstExecutionRunId } = await embedded.wharf.startSwarm(definition, inputs, {
      ownerId: options.owner,
      workdir: resolve(options.workdir ?? process.cwd()),
      ...(options.waitForInputsMs === undefined ? {} : { waitForInputsMs: options.waitForInputsMs }),
      ...(options.concurrency === undefined ? {} : { maxConcurrentTasks: options.concurrency }),
    });
    return {
      workflowId,
      firstExecutionRunId,
      announce: (link) => [`wharf: started ${workflowId}${link ? ` — ${link}` : ''}`],
      // Each gated task's own command once its gate opens, a gate inside a `swarm:` task's child
      // run too (`notes.publish`): one skipped later is never announced.
      gated: gatedTasks(definition).length > 0,
      tasks: Object.keys(definition.tasks),
    };
  });
}
