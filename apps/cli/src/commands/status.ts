import { Connection } from '@temporalio/client';
import { WharfClient } from '@wharf/orchestrator/client';
import { CliError } from '../cli-error.js';
import { type CliIo, printJson } from '../output.js';
import { progressLines } from '../progress-view.js';

/** `wharf status <workflowId>`: the swarm's progress table (needs a running worker to answer). */
export async function statusCommand(
  workflowId: string,
  options: { address: string; namespace: string; json: boolean },
  io: CliIo,
): Promise<void> {
  const connection = await Connection.connect({ address: options.address, connectTimeout: 3_000 }).catch(
    (error: Error) => {
      throw new CliError('UNREACHABLE', `no Temporal server at ${options.address}: ${error.message}`, {
        cause: error,
      });
    },
  );
  try {
    const wharf = new WharfClient({ connection, namespace: options.namespace });
    const progress = await wharf.progress(workflowId).catch((error: Error) => {
      throw new CliError('NOT_FOUND', `cannot query ${workflowId}: ${error.message}`, { cause: error });
    });
    if (options.json) return printJson(io, progress);
    io.out(`${progress.swarm}: ${progress.status} (step ${progress.step})`);
    for (const line of progressLines(progress, Date.now())) io.out(`  ${line}`);
  } finally {
    await connection.close();
  }
}
