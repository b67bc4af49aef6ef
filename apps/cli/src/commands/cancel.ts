import { userInfo } from 'node:os';
import type { WorkflowHandle } from '@temporalio/client';
import { cancelledBySignal } from '@wharf/orchestrator';
import { CliError } from '../cli-error.js';
import { connectOrRestartDevServer } from '../data-dir-server.js';
import { type CliIo, printJson } from '../output.js';

/** Options of {@link cancelCommand} and {@link terminateCommand}. */
export interface StopOptions {
  address?: string;
  namespace?: string;
  dataDir?: string;
  json: boolean;
  /** `--wait`: how long to wait for the run to end (ms). */
  waitMs: number;
  /** `--reason`: recorded with a termination. */
  reason?: string;
  /** `--by`: who asks; default the OS user ({@link requester}). */
  by?: string;
}

/**
 * Who asks for a cancellation or termination: `--by`, else the OS user (`USER`, else the
 * account's name), else `someone`.
 *
 * @example
 * ```ts
 * requester({ by: 'ana' }); // 'ana'
 * requester({}, { USER: 'bo' }); // 'bo'
 * ```
 */
export function requester(
  options: { by?: string | undefined },
  env: NodeJS.ProcessEnv = process.env,
): string {
  if (options.by !== undefined && options.by.trim() !== '') return options.by.trim();
  if (env.USER !== undefined && env.USER !== '') return env.USER;
  try {
    return userInfo().username || 'someone';
  } catch {
    return 'someone';
  }
}

/**
 * `wharf cancel <workflowId>`: a Temporal cancellation of a running swarm (not a termination):
 * its worker stops scheduling, the activities and agent children in flight are cancelled (a
 * script is stopped as on Ctrl-C), outputs already stored stay, and the run ends CANCELED, its
 * memo naming who asked (`--by`, default the OS user: the `cancelledBy` signal goes first) and when.
 * Waits up to `--wait` for it to end (a run no worker serves ends once one runs it: the message
 * says so). A run that has ended is refused (exit 2), an unknown one is exit 3. When no server
 * answers and the data directory holds the dev server a `wharf run` started itself (and that
 * stopped with it), that server starts again for the command (`connectOrRestartDevServer`).
 */
export async function cancelCommand(workflowId: string, options: StopOptions, io: CliIo): Promise<void> {
  await stop(workflowId, options, io, 'cancel', async (handle) => {
    // Who asks goes first, so the run's memo names them when it ends cancelled.
    await handle.signal(cancelledBySignal, { by: requester(options) });
    await handle.cancel();
  });
}

/**
 * `wharf terminate <workflowId>`: ends a run at once on the server, for one that will not cancel
 * (no worker runs its cancellation): nothing of it runs again, what it stored stays, and the run
 * ends TERMINATED with `--reason`. Like `cancel`, it starts the data directory's own dev server
 * again when that is where the run waits.
 */
export async function terminateCommand(workflowId: string, options: StopOptions, io: CliIo): Promise<void> {
  await stop(workflowId, options, io, 'terminate', (handle) =>
    handle.terminate(options.reason ?? `wharf terminate by ${requester(options)}`),
  );
}

async function stop(
  workflowId: string,
  options: StopOptions,
  io: CliIo,
  verb: 'cancel' | 'terminate',
  request: (handle: WorkflowHandle) => Promise<unknown>,
): Promise<void> {
  const dataDir = options.dataDir ?? '.wharf';
  // A run whose `wharf run` started its own dev server waits in the data directory: that server
  // starts again for this command (as `wharf resume` starts it) and stops with it.
  const server = await connectOrRestartDevServer(workflowId, { ...options, dataDir }, io);
  const { connection, namespace, restarted } = server;
  try {
    const { Client } = await import('@temporalio/client');
    const handle = new Client({ connection, namespace }).workflow.getHandle(workflowId);
    const before = await handle.describe().catch((error: Error) => {
      const where = restarted === undefined ? '' : ` (on the dev server of ${dataDir}, started again)`;
      throw new CliError('NOT_FOUND', `cannot ${verb} ${workflowId}${where}: ${error.message}`, {
        cause: error,
      });
    });
    if (before.status.name !== 'RUNNING')
      throw new CliError(
        'USAGE',
        `${workflowId} has already ended (${before.status.name.toLowerCase()}): nothing to ${verb}`,
      );
    await request(handle);
    const deadline = Date.now() + options.waitMs;
    let status = before.status.name as string;
    while (status === 'RUNNING' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      status = (await handle.describe()).status.name;
    }
    const ended = status !== 'RUNNING';
    if (options.json)
      return printJson(io, {
        workflowId,
        requested: verb,
        status: status.toLowerCase(),
        ended,
        ...(restarted === undefined ? {} : { restartedServer: restarted }),
      });
    if (ended) io.out(`wharf: ${workflowId} ${status === 'CANCELLED' ? 'cancelled' : status.toLowerCase()}`);
    else {
      // The commands as they must be typed: with this data directory when its server was started again.
      const place = restarted === undefined ? '' : ` --data-dir ${dataDir}`;
      io.out(
        `wharf: ${verb === 'cancel' ? 'cancellation' : 'termination'} of ${workflowId} requested; it still runs: it ends once a worker runs it (\`wharf resume ${workflowId}${place}\` gives it one, \`wharf terminate ${workflowId}${place}\` ends it without one)`,
      );
    }
    if (restarted !== undefined)
      io.err(
        `wharf: the dev server of ${dataDir} was started again for this and stops with it; the ${verb === 'cancel' ? 'cancellation' : 'termination'} is kept in ${dataDir}/temporal.db`,
      );
  } finally {
    await server.close();
  }
}
