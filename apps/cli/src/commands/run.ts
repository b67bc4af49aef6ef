import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { formatBytes, type SwarmResult } from '@wharf/orchestrator';
import { startEmbedded } from '@wharf/orchestrator/embedded';
import { createModelRegistry } from '@wharf/orchestrator/node';
import { CliError } from '../cli-error.js';
import { definitionWithModels, type ModelOptions, modelChoice } from '../model-options.js';
import { type CliIo, printJson } from '../output.js';
import { parseInputs } from '../parse-inputs.js';
import { changedLines, progressLines } from '../progress-view.js';
import { refuseMissingInputs } from '../refuse-missing-inputs.js';
import { resumeHint } from '../resume-hint.js';
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
}

/**
 * `wharf run`: validates the swarm, starts it (with an in-process worker and, when no
 * Temporal server answers, a local dev server), follows it if asked, and prints the result,
 * the out ids and the Web UI link.
 */
export async function runCommand(file: string, options: RunOptions, io: CliIo): Promise<SwarmResult> {
  // --model and WHARF_MODEL rewrite the definition: the models travel with the swarm.
  const models = modelChoice(options, process.env);
  const loaded = await loadSwarm(file, { tools: options.tools });
  const definition = definitionWithModels(loaded, models, { check: true });
  const inputs = parseInputs(options.input);
  refuseMissingInputs(definition, inputs, options.waitForInputsMs);
  const embedded = await startEmbedded({
    dataDir: options.dataDir,
    models: createModelRegistry(),
    summarizer: models.summarizer ?? false,
    ...(options.address === undefined ? {} : { temporalAddress: options.address }),
    ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
    onProgress: (message) => io.err(`wharf: ${message}`),
  }).catch((error: Error) => {
    throw new CliError('UNREACHABLE', error.message, { cause: error });
  });
  try {
    const { workflowId, firstExecutionRunId } = await embedded.wharf.startSwarm(definition, inputs, {
      ownerId: options.owner,
      workdir: resolve(options.workdir ?? process.cwd()),
      ...(options.waitForInputsMs === undefined ? {} : { waitForInputsMs: options.waitForInputsMs }),
      ...(options.concurrency === undefined ? {} : { maxConcurrentTasks: options.concurrency }),
    });
    const link = embedded.workflowUrl(workflowId, firstExecutionRunId);
    io.err(`wharf: started ${workflowId}${link ? ` — ${link}` : ''}`);
    io.err(resumeHint(workflowId, embedded, options.dataDir));
    const gated = Object.entries(definition.tasks).filter(([, task]) => task.approval !== undefined);
    if (gated.length > 0) {
      const address = embedded.address === '127.0.0.1:7233' ? '' : ` --address ${embedded.address}`;
      io.err(
        `wharf: ${gated.map(([name]) => name).join(', ')} wait${gated.length === 1 ? 's' : ''} for approval; answer with: wharf approve ${workflowId} <task>${address} [--reject] [--comment …]`,
      );
    }
    const resultPromise = embedded.wharf.result(workflowId);
    if (options.follow && !options.json) await follow(embedded.wharf, workflowId, resultPromise, io);
    const result = await resultPromise;
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
}

/** Shows a running swarm's progress until `done` settles (`--follow`). */
export async function follow(
  wharf: Awaited<ReturnType<typeof startEmbedded>>['wharf'],
  workflowId: string,
  done: Promise<unknown>,
  io: CliIo,
): Promise<void> {
  let finished = false;
  void done.then(
    () => {
      finished = true;
    },
    () => {
      finished = true;
    },
  );
  const seen = new Map<string, string>();
  let drawn = 0;
  while (!finished) {
    const progress = await wharf.progress(workflowId).catch(() => undefined);
    if (progress !== undefined) {
      if (io.isTTY) {
        const lines = progressLines(progress, Date.now());
        if (drawn > 0) io.out(`\u001b[${drawn}A\u001b[0J`.trimEnd());
        io.out(lines.join('\n'));
        drawn = lines.length + 1;
      } else {
        for (const line of changedLines(progress, seen)) io.out(line);
      }
    }
    await Promise.race([sleep(500), done.catch(() => {})]);
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
    const outs = task.outIds.length > 0 ? ` → ${task.outIds.join(', ')}` : '';
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
