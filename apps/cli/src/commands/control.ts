import { WharfOrchestratorError } from '@wharf/orchestrator';
import { CliError } from '../cli-error.js';
import { type ServerOptions, withClient } from '../connect-server.js';
import { type CliIo, printJson } from '../output.js';
import { parseInputs } from '../parse-inputs.js';
import { requireWorker } from '../require-worker.js';

/**
 * `wharf approve RUN TASK [--reject] [--comment …]`: answers a task's approval gate. An
 * approved task runs at the swarm's next step; a rejected one is skipped (or failed, as its
 * `on_reject` says) with the comment as its reason. With `--call <id>`, answers one tool call
 * the agent task TASK holds instead: approved, it runs; rejected, it does not and the model
 * reads the rejection (with the comment) as the tool's result. TASK `<swarm task>.<inner task>`
 * names a gate (or held call) inside that `swarm:` task's child run: the answer goes there.
 */
export async function approveCommand(
  workflowId: string,
  task: string,
  options: ServerOptions & { call?: string; reject: boolean; comment?: string; by?: string; json: boolean },
  io: CliIo,
): Promise<void> {
  await withClient(options, async (wharf) => {
    await requireWorker(wharf, workflowId, 'approve');
    const answer = {
      approve: !options.reject,
      ...(options.comment === undefined ? {} : { comment: options.comment }),
      ...(options.by === undefined ? {} : { by: options.by }),
    };
    if (options.call !== undefined) {
      const result = await wharf
        .approveToolCall(workflowId, task, options.call, answer)
        .catch((error: unknown) => refused(error, workflowId));
      if (options.json) return printJson(io, result);
      io.out(
        `${workflowId}: ${task} call ${result.callId} (${result.tool}) ${result.decision}${options.comment ? ` (${options.comment})` : ''}`,
      );
      return;
    }
    const result = await wharf
      .approveTask(workflowId, task, {
        approve: !options.reject,
        ...(options.comment === undefined ? {} : { comment: options.comment }),
        ...(options.by === undefined ? {} : { by: options.by }),
      })
      .catch((error: unknown) => refused(error, workflowId));
    if (options.json) return printJson(io, result);
    io.out(`${workflowId}: ${task} ${result.decision}${options.comment ? ` (${options.comment})` : ''}`);
  });
}

/**
 * `wharf input RUN key=value… | --json '{…}' [--replace]`: adds `†input.*` values to a running
 * swarm; tasks waiting on them become ready. A key that already holds a value is refused
 * (exit 2, naming it; nothing is added) unless `--replace`.
 */
export async function inputCommand(
  workflowId: string,
  pairs: readonly string[],
  options: ServerOptions & { json?: string; replace?: boolean },
  io: CliIo,
): Promise<void> {
  const values = { ...jsonObject(options.json), ...parseInputs(pairs) };
  if (Object.keys(values).length === 0) {
    throw new CliError('USAGE', 'wharf input needs key=value pairs or --json \'{"key": …}\'');
  }
  await withClient(options, async (wharf) => {
    await wharf.client.workflow
      .getHandle(workflowId)
      .describe()
      .catch((error: Error) => {
        throw new CliError('NOT_FOUND', `cannot signal ${workflowId}: ${error.message}`, { cause: error });
      });
    await requireWorker(wharf, workflowId, 'input');
    // A key already set is a usage error; a swarm that already ended takes no more input.
    const result = await wharf
      .addInputs(workflowId, values, { replace: options.replace === true })
      .catch((error: unknown) => refused(error, workflowId));
    const named = (keys: readonly string[]) => keys.map((key) => `†input.${key}`).join(', ');
    io.out(
      `${workflowId}: ${[
        ...(result.added.length > 0 ? [`added ${named(result.added)}`] : []),
        ...(result.replaced.length > 0 ? [`replaced ${named(result.replaced)}`] : []),
      ].join('; ')}`,
    );
  });
}

function jsonObject(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CliError('USAGE', `--json is not JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new CliError('USAGE', '--json expects an object of input values, e.g. \'{"region": "eu"}\'');
  }
  return value as Record<string, unknown>;
}

function refused(error: unknown, workflowId: string): never {
  if (WharfOrchestratorError.isInstance(error) && error.code === 'INVALID_REQUEST') {
    throw new CliError('USAGE', error.message, { cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  throw new CliError('NOT_FOUND', `cannot update ${workflowId}: ${message}`, { cause: error });
}
