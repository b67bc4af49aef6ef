import { type SwarmResult, WharfOrchestratorError } from '@wharf/orchestrator';
import { awaitRun } from '../await-run.js';
import { CliError } from '../cli-error.js';
import { InterruptWatch, RUN_DRAIN_MS, RUN_EXIT_MARGIN_MS } from '../interrupt.js';
import { definitionWithModels, type ModelOptions, modelChoice } from '../model-options.js';
import { type CliIo, printJson } from '../output.js';
import { parseInputs } from '../parse-inputs.js';
import { resumeHint } from '../resume-hint.js';
import { startRunWorker } from '../start-run-worker.js';
import { printResult } from './run.js';
import { loadSwarm } from './validate.js';

/** Options of {@link rerunCommand}. */
export interface RerunCommandOptions extends ModelOptions {
  from: string;
  input: string[];
  /** An edited definition to run instead of the run's own (`--model` applies to it). */
  file?: string;
  follow: boolean;
  json: boolean;
  dataDir: string;
  address?: string;
  tools?: readonly string[] | undefined;
}

/**
 * `wharf rerun <workflowId> --from <task>`: re-runs a finished swarm run from one of its tasks
 * (`WharfClient.rerun`), with a worker in this process as `wharf run` has, on the run's data
 * plane: `<task>` and everything downstream run again, every other task reuses the outputs the
 * run stored. Prints what it reuses and what runs again (and why), follows the new run like
 * `wharf run` and prints its result. The run is read from Temporal alone: it may have ended
 * with every worker gone. Ctrl-C behaves as in `wharf run`: the new run goes on without this
 * command, which says how to reach it and drains its worker.
 */
export async function rerunCommand(
  workflowId: string,
  options: RerunCommandOptions,
  io: CliIo,
): Promise<SwarmResult> {
  const models = modelChoice(options, process.env);
  const definition =
    options.file === undefined
      ? undefined
      : definitionWithModels(await loadSwarm(options.file, { tools: options.tools }), models, {
          check: true,
        });
  const inputs = parseInputs(options.input);
  const watch = new InterruptWatch({ io, drainMs: RUN_DRAIN_MS, exitMs: RUN_DRAIN_MS + RUN_EXIT_MARGIN_MS });
  try {
    return await rerunWithWorker(
      workflowId,
      { ...options, definition, inputs, summarizer: models.summarizer },
      watch,
      io,
    );
  } finally {
    watch.dispose();
  }
}

async function rerunWithWorker(
  workflowId: string,
  options: Omit<RerunCommandOptions, 'file' | 'input' | 'summarizer'> & {
    definition: Awaited<ReturnType<typeof loadSwarm>> | undefined;
    inputs: Record<string, unknown>;
    summarizer: string | undefined;
  },
  watch: InterruptWatch,
  io: CliIo,
): Promise<SwarmResult> {
  const { definition, inputs } = options;
  const embedded = await startRunWorker(
    { dataDir: options.dataDir, address: options.address, summarizer: options.summarizer },
    io,
  );
  watch.setDataRoot(embedded.data.root);
  try {
    if (watch.signal !== undefined) throw watch.error('interrupted before the re-run started');
    const rerun = await embedded.wharf
      .rerun(workflowId, {
        from: options.from,
        ...(Object.keys(inputs).length === 0 ? {} : { inputs }),
        ...(definition === undefined ? {} : { definition }),
      })
      .catch((error: unknown) => {
        if (WharfOrchestratorError.isInstance(error))
          throw new CliError('USAGE', error.message, { cause: error });
        const message = error instanceof Error ? error.message : String(error);
        throw new CliError('NOT_FOUND', `cannot re-run ${workflowId}: ${message}`, { cause: error });
      });
    const link = embedded.workflowUrl(rerun.workflowId, rerun.firstExecutionRunId);
    io.err(
      `wharf: started ${rerun.workflowId}, a re-run of ${workflowId} from ${options.from}${link ? ` — ${link}` : ''}`,
    );
    io.err(`wharf: reuses ${rerun.plan.reused.length === 0 ? 'nothing' : rerun.plan.reused.join(', ')}`);
    io.err(
      `wharf: runs again ${rerun.plan.rerun.map(({ task, reason }) => `${task} (${reason})`).join(', ')}`,
    );
    io.err(resumeHint(rerun.workflowId, embedded, options.dataDir));
    const result = await awaitRun(embedded, rerun.workflowId, {
      watch,
      dataDir: options.dataDir,
      link,
      follow: options.follow && !options.json,
      io,
    });
    if (options.json)
      printJson(io, {
        workflowId: rerun.workflowId,
        rerunOf: workflowId,
        url: link,
        plan: rerun.plan,
        ...result,
      });
    else printResult(io, rerun.workflowId, result, link);
    return result;
  } finally {
    await embedded.stop();
  }
}
