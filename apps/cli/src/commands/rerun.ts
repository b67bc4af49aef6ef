import {
  checkRerunFrom,
  type SwarmDefinition,
  type SwarmResult,
  WharfOrchestratorError,
} from '@wharf/orchestrator';
import { CliError } from '../cli-error.js';
import { loadSwarm } from '../load-swarm.js';
import { definitionWithModels, type ModelOptions, modelChoice } from '../model-options.js';
import type { CliIo } from '../output.js';
import { parseInputs } from '../parse-inputs.js';
import { rerunServer } from '../rerun-server.js';
import { runToEnd } from '../run-lifecycle.js';
import { recordedRunTasks } from '../run-record.js';

/** Options of {@link rerunCommand}. */
export interface RerunCommandOptions extends ModelOptions {
  /** The task to run again with what depends on it; none: only what reads a changed input (or changed in `file`). */
  from?: string | undefined;
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
 * run stored. Without `--from`, `--input k=v` (or `--file`) alone: the tasks that read a changed
 * input (or changed in the file) run again with what depends on them. An unknown `--from` is
 * refused before anything starts: checked against `--file`, else against the task names this
 * data directory recorded when it started the run (`recordRunTasks`), else against the run's
 * definition read from a server that already answers (`rerunServer`); only when none of these
 * knows the run is it read once the data directory's dev server started. Prints what it reuses and what runs again (and why), follows the new run like
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
  if (options.from === undefined && Object.keys(inputs).length === 0 && definition === undefined)
    throw new CliError(
      'USAGE',
      'say what runs again: --from <task> (it and what depends on it), --input <key=value> (the tasks reading it) or --file <swarm.yaml> (the tasks changed in it)',
    );
  if (options.from !== undefined) await refuseUnknownFrom(workflowId, options.from, definition, options);
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
        ...(options.from === undefined ? {} : { from: options.from }),
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
        `wharf: started ${rerun.workflowId}, a re-run of ${workflowId} ${options.from === undefined ? 'for what changed' : `from ${options.from}`}${link ? ` — ${link}` : ''}`,
        `wharf: reuses ${plan.reused.length === 0 ? 'nothing' : plan.reused.join(', ')}`,
        `wharf: runs again ${plan.rerun.map(({ task, reason }) => `${task} (${reason})`).join(', ')}`,
      ],
      json: { rerunOf: workflowId, plan },
      tasks: Object.keys(rerun.definition.tasks),
    };
  });
}

/**
 * Refuses `--from <task>` naming no task, before a worker or a server starts: against the edited
 * definition when there is one, else against the run's own, read from a server that already
 * answers. A run that server does not know is refused too; when no server answers, or the run
 * cannot be read this way, the check is left to the re-run itself (`planRerun`).
 */
async function refuseUnknownFrom(
  workflowId: string,
  from: string,
  edited: SwarmDefinition | undefined,
  options: Pick<RerunCommandOptions, 'address' | 'dataDir'>,
): Promise<void> {
  // The edited definition, else what this data directory recorded when it started the run,
  // else the run's own definition on a server that already answers.
  const recorded = edited === undefined ? await recordedRunTasks(options.dataDir, workflowId) : undefined;
  const tasks =
    edited === undefined
      ? (recorded ??
        (await rerunServer(workflowId, options, async (wharf) =>
          Object.keys((await wharf.definitionOf(workflowId)).tasks),
        )))
      : Object.keys(edited.tasks);
  if (tasks === undefined) return;
  // `notes.s1` names a task of the swarm: task `notes`'s child run: its head is checked here,
  // the rest against the child's run when the re-run reads it.
  if (tasks.includes(from.split('.')[0] as string)) return;
  try {
    checkRerunFrom(tasks, from);
  } catch (error) {
    throw new CliError('USAGE', (error as Error).message, { cause: error });
  }
}
