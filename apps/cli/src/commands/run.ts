import { resolve } from 'node:path';
import { formatBytes, type SwarmResult } from '@wharf/orchestrator';
import { awaitRun } from '../await-run.js';
import { InterruptWatch, RUN_DRAIN_MS, RUN_EXIT_MARGIN_MS } from '../interrupt.js';
import { definitionWithModels, type ModelOptions, modelChoice } from '../model-options.js';
import { type CliIo, printJson } from '../output.js';
import { parseInputs } from '../parse-inputs.js';
import { refuseMissingInputs } from '../refuse-missing-inputs.js';
import { reportQueueWorkers } from '../report-queue-workers.js';
import { resumeHint } from '../resume-hint.js';
import { approveCommandFor, webUiNote } from '../run-hints.js';
import { startRunWorker } from '../start-run-worker.js';
import { loadSwarm } from './validate.js';

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
 * the out ids and the Web UI link. Ctrl-C (or SIGTERM) says at once that the swarm goes on
 * without this command and how to reach it, stops the worker within `RUN_DRAIN_MS`, and ends
 * with exit 130 (143); a second Ctrl-C exits at once (see `InterruptWatch`).
 */
export async function runCommand(file: string, options: RunOptions, io: CliIo): Promise<SwarmResult> {
  // --model and WHARF_MODEL rewrite the definition: the models travel with the swarm.
  const models = modelChoice(options, process.env);
  const loaded = await loadSwarm(file, { tools: options.tools });
  const definition = definitionWithModels(loaded, models, { check: true });
  const inputs = parseInputs(options.input);
  refuseMissingInputs(definition, inputs, options.waitForInputsMs);
  const exitMs = RUN_DRAIN_MS + RUN_EXIT_MARGIN_MS;
  const watch = new InterruptWatch({ io, drainMs: RUN_DRAIN_MS, exitMs });
  try {
    const embedded = await startRunWorker(
      {
        dataDir: options.dataDir,
        address: options.address,
        uiUrl: options.uiUrl,
        concurrency: options.concurrency,
        summarizer: models.summarizer,
        taskQueue: options.taskQueue,
        worker: options.worker,
      },
      io,
    );
    watch.setDataRoot(embedded.data.root);
    if (options.worker === false) await reportQueueWorkers(embedded, io);
    try {
      if (watch.signal !== undefined) throw watch.error('interrupted before the swarm started');
      const { workflowId, firstExecutionRunId } = await embedded.wharf.startSwarm(definition, inputs, {
        ownerId: options.owner,
        workdir: resolve(options.workdir ?? process.cwd()),
        ...(options.waitForInputsMs === undefined ? {} : { waitForInputsMs: options.waitForInputsMs }),
        ...(options.concurrency === undefined ? {} : { maxConcurrentTasks: options.concurrency }),
      });
      const link = embedded.workflowUrl(workflowId, firstExecutionRunId);
      io.err(`wharf: started ${workflowId}${link ? ` — ${link}` : ''}`);
      if (link === undefined) io.err(webUiNote(embedded.address));
      if (options.worker !== false) io.err(resumeHint(workflowId, embedded, options.dataDir));
      const approveCommand = approveCommandFor(workflowId, embedded.address);
      // Each gated task's own command, now; following, the table shows it again when the gate opens.
      for (const [name, task] of Object.entries(definition.tasks)) {
        if (task.approval === undefined) continue;
        io.err(
          `wharf: ${name} waits for approval; answer with: ${approveCommand(name)} [--reject] [--comment …]`,
        );
      }
      const result = await awaitRun(embedded, workflowId, {
        watch,
        dataDir: options.dataDir,
        link,
        follow: options.follow && !options.json,
        io,
      });
      if (options.json) printJson(io, { workflowId, url: link, ...result });
      else printResult(io, workflowId, result, link);
      if (embedded.startedServer) {
        io.err(
          'wharf: the dev server stops with this command; run `wharf dev` in another terminal to keep the Web UI.',
        );
      }
      return result;
    } finally {
      await embedded.stop();
    }
  } finally {
    watch.dispose();
  }
}

/** Prints a finished swarm's result: its tasks, out ids, totals, the supervisor's answer. */
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
    io.out(`  ${task.task}: ${task.status}${task.reason ? ` (${task.reason})` : ''}${outs}`);
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
