import { type SwarmResult, WharfOrchestratorError } from '@wharf/orchestrator';
import { CliError } from '../cli-error.js';
import { loadSwarm } from '../load-swarm.js';
import { definitionWithModels, type ModelOptions, modelChoice } from '../model-options.js';
import type { CliIo } from '../output.js';
import { parseInputs } from '../parse-inputs.js';
import { runToEnd } from '../run-lifecycle.js';

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
 * with every worker gone. Its life is `runToEnd`'s, as `wharf run`'s is: Ctrl-C leaves the new
 * run going on without this command, which says how to reach it and drains its worker.
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
  const worker = { dataDir: options.dataDir, address: options.address, summarizer: models.summarizer };
  const lifecycle = {
    worker,
    follow: options.follow,
    json: options.json,
    starting: 'the re-run',
    resumeHint: true,
  };
  return runToEnd(lifecycle, io, async (embedded) => {
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
    const { plan } = rerun;
    return {
      workflowId: rerun.workflowId,
      firstExecutionRunId: rerun.firstExecutionRunId,
      announce: (link) => [
        `wharf: started ${rerun.workflowId}, a re-run of ${workflowId} from ${options.from}${link ? ` — ${link}` : ''}`,
        `wharf: reuses ${plan.reused.length === 0 ? 'nothing' : plan.reused.join(', ')}`,
        `wharf: runs again ${plan.rerun.map(({ task, reason }) => `${task} (${reason})`).join(', ')}`,
      ],
      json: { rerunOf: workflowId, plan },
    };
  });
}
