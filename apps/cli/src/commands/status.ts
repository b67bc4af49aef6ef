import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { formatUsage, pendingApprovals, swarmUsage } from '@wharf/orchestrator';
import { WharfClient } from '@wharf/orchestrator/client';
import { createWharfDataConverter } from '@wharf/orchestrator/node';
import { SqliteOutputStore } from '@wharf/output-store';
import { CliError } from '../cli-error.js';
import { type CliIo, printJson } from '../output.js';
import { progressLines } from '../progress-view.js';

/**
 * `wharf status <workflowId>`: a running swarm's progress table (a worker answers the query);
 * for a finished swarm, failed or not, its result, read from Temporal without a worker. Agent
 * tasks' model usage (tokens, and cost when priced) is shown per task and summed.
 * A wide swarm's answer is over 256 KiB and the worker stores it in its output store: when the
 * data directory has one, the client reads such answers from it.
 */
export async function statusCommand(
  workflowId: string,
  options: { address: string; namespace: string; json: boolean; dataDir?: string },
  io: CliIo,
): Promise<void> {
  const connection = await Connection.connect({ address: options.address, connectTimeout: 3_000 }).catch(
    (error: Error) => {
      throw new CliError('UNREACHABLE', `no Temporal server at ${options.address}: ${error.message}`, {
        cause: error,
      });
    },
  );
  const storePath = join(options.dataDir ?? '.wharf', 'outputs.db');
  const store = existsSync(storePath) ? new SqliteOutputStore({ path: storePath }) : undefined;
  try {
    const wharf = new WharfClient({
      connection,
      namespace: options.namespace,
      ...(store === undefined ? {} : { dataConverter: createWharfDataConverter({ store }) }),
    });
    const notFound = (error: Error): never => {
      throw new CliError('NOT_FOUND', `cannot query ${workflowId}: ${error.message}`, { cause: error });
    };
    const description = await wharf.client.workflow.getHandle(workflowId).describe().catch(notFound);
    if (description.status.name !== 'RUNNING') {
      // A finished swarm's result, whether its run completed or failed with WharfSwarmFailed.
      const result = await wharf.result(workflowId).catch(() => undefined);
      if (result !== undefined) {
        if (options.json) return printJson(io, result);
        io.out(`${result.swarm}: ${result.status} (run ${description.status.name.toLowerCase()})`);
        for (const line of progressLines({ ...result, step: 0 }, Date.now())) io.out(`  ${line}`);
        if (result.metrics.usage !== undefined) io.out(`model usage: ${formatUsage(result.metrics.usage)}`);
        return;
      }
    }
    const progress = await wharf.progress(workflowId).catch(notFound);
    if (options.json) return printJson(io, progress);
    io.out(`${progress.swarm}: ${progress.status} (step ${progress.step})`);
    for (const line of progressLines(progress, Date.now())) io.out(`  ${line}`);
    const usage = swarmUsage(progress.tasks);
    if (usage !== undefined) io.out(`model usage so far: ${formatUsage(usage)}`);
    const gates = pendingApprovals(progress);
    if (gates.length > 0) {
      io.out(`\nWaiting for approval (${gates.length}):`);
      for (const gate of gates) {
        io.out(`  ${gate.task}${gate.prompt === undefined ? '' : `: ${gate.prompt}`}`);
        io.out(`    wharf approve ${workflowId} ${gate.task} [--reject] [--comment "…"]`);
      }
    }
  } finally {
    await store?.close();
    await connection.close();
  }
}
