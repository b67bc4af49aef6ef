import { CliError } from './cli-error.js';

/**
 * How to reach a run's server again: the dev server a `wharf run` started itself stopped with
 * it (its runs wait in the data directory for `wharf resume`, which starts it again).
 *
 * @example
 * ```ts
 * io.err(serverHint('etl-2026', '.wharf'));
 * ```
 */
export function serverHint(workflowId: string | undefined, dataDir: string): string {
  const run = workflowId ?? '<run>';
  return `if a \`wharf run\` started its own dev server, it stopped with it: \`wharf resume ${run} --data-dir ${dataDir}\` starts it again and gives the run a worker, \`wharf dev --data-dir ${dataDir}\` starts it to look around`;
}

/**
 * `connect`'s result, or its `UNREACHABLE` error with {@link serverHint} added: what a command
 * about a run says when no server answers.
 *
 * @example
 * ```ts
 * const { connection } = await withServerHint(connectServer(options), workflowId, '.wharf');
 * ```
 */
export async function withServerHint<TValue>(
  connect: Promise<TValue>,
  workflowId: string | undefined,
  dataDir: string,
): Promise<TValue> {
  return connect.catch((error: unknown) => {
    if (CliError.isInstance(error) && error.code === 'UNREACHABLE')
      throw new CliError('UNREACHABLE', `${error.message}\n${serverHint(workflowId, dataDir)}`, {
        cause: error,
      });
    throw error;
  });
}
