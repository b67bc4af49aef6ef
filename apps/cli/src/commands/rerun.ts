import { type SwarmResult, WharfOrchestratorError } from '@wharf/orchestrator';
import { startEmbedded } from '@wharf/orchestrator/embedded';
import { createModelRegistry } from '@wharf/orchestrator/node';
import { CliError } from '../cli-error.js';
import { followRun } from '../follow-run.js';
import { definitionWithModels, type ModelOptions, modelChoice } from '../model-options.js';
import { type CliIo, printJson } from '../output.js';
import { parseInputs } from '../parse-inputs.js';
import { resumeHint } from '../resume-hint.js';
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
 * with every worker gone.
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
  const embedded = await startEmbedded({
    dataDir: options.dataDir,
    models: createModelRegistry(),
    summarizer: models.summarizer ?? false,
    ...(options.address === undefined ? {} : { temporalAddress: options.address }),
    onProgress: (message) => io.err(`wharf: ${message}`),
  }).catch((error: Error) => {
    throw new CliError('UNREACHABLE', error.message, { cause: error });
  });
  try {
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
    const resultPromise = embedded.wharf.result(rerun.workflowId);
    if (options.follow && !options.json)
      await followRun(embedded.wharf, rerun.workflowId, { result: resultPromise, until: resultPromise, io });
    const result = await resultPromise;
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
