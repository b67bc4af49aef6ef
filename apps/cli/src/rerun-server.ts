import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadTemporalConfig, type WharfClient } from '@wharf/orchestrator/client';
import { CliError } from './cli-error.js';
import { withClient } from './connect-server.js';

/** gRPC's NOT_FOUND status: the server answered and has no such workflow. */
const GRPC_NOT_FOUND = 5;

/**
 * Runs `read` on a client of the server a re-run of `workflowId` would use, when one already
 * answers (none is started): `--address`, else the cluster Temporal's configuration names, else
 * the dev server this data directory's `wharf dev` or `wharf run` recorded (`dev.json`), else
 * `127.0.0.1:7233`. Undefined when no server answers or the read fails for another reason than
 * an unknown run, which is a `NOT_FOUND` CLI error (exit 3).
 *
 * @example
 * ```ts
 * const definition = await rerunServer('etl-2026', { dataDir: '.wharf' }, (wharf) => wharf.definitionOf('etl-2026'));
 * ```
 */
export async function rerunServer<TValue>(
  workflowId: string,
  options: { address?: string | undefined; dataDir: string },
  read: (wharf: WharfClient) => Promise<TValue>,
): Promise<TValue | undefined> {
  const address = options.address ?? (await recordedAddress(options.dataDir));
  try {
    return await withClient(address === undefined ? {} : { address }, read);
  } catch (error) {
    if ((error as { code?: unknown }).code === GRPC_NOT_FOUND)
      throw new CliError('NOT_FOUND', `cannot re-run ${workflowId}: ${(error as Error).message}`, {
        cause: error,
      });
    return undefined;
  }
}

/** The dev server recorded in the data directory, unless Temporal's configuration names a cluster. */
async function recordedAddress(dataDir: string): Promise<string | undefined> {
  if (loadTemporalConfig({}).configured) return undefined;
  try {
    const state = JSON.parse(await readFile(join(dataDir, 'dev.json'), 'utf8')) as { address?: unknown };
    return typeof state.address === 'string' && state.address.length > 0 ? state.address : undefined;
  } catch {
    return undefined;
  }
}
