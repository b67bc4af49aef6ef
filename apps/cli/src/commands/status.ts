import { existsSync } from 'node:fs';
import { approveCommand, formatUsage, pendingApprovals, swarmUsage } from '@wharf/orchestrator';
import { WharfClient } from '@wharf/orchestrator/client';
import { type ResolvedDataPlane, resolveDataPlane } from '@wharf/orchestrator/data-dir';
import { createWharfDataConverter } from '@wharf/orchestrator/node';
import {
  checkDataPlane,
  type DataPlane,
  type DataPlaneCheck,
  InvalidStoreUrlError,
  openDataPlane,
} from '@wharf/output-store/config';
import { CliError } from '../cli-error.js';
import { connectServer } from '../connect-server.js';
import { type CliIo, printJson } from '../output.js';
import { progressLines } from '../progress-view.js';
import { queueWorkers } from '../queue-workers.js';
import { retryingLines } from '../retrying-lines.js';
import { memoStatusLines } from '../status-from-memo.js';

function resolveOrRefuse(dataDir: string): ResolvedDataPlane {
  try {
    return resolveDataPlane(dataDir);
  } catch (error) {
    if (InvalidStoreUrlError.isInstance(error)) throw new CliError('USAGE', error.message, { cause: error });
    throw error;
  }
}

/** The configured store, or the data directory's SQLite file if it exists (never creates one). */
async function openExistingStore(plane: ResolvedDataPlane): Promise<DataPlane | undefined> {
  if (!plane.shared && !existsSync(plane.store)) return undefined;
  return openDataPlane({ store: plane.store, ...(plane.blobs === undefined ? {} : { blobs: plane.blobs }) });
}

/**
 * `wharf status`: where the store, its large bodies and the evidence live (`WHARF_STORE`,
 * `WHARF_BLOBS`, else the data directory), without passwords, and whether they work: it opens
 * the data plane as every other command does (a configuration they would refuse is refused
 * here too) and checks it (`checkDataPlane`: the store answers, a blob store takes, gives back
 * and removes a probe body). A failure exits as the other commands' would (2 a wrong
 * configuration or credentials, 3 a missing database or bucket, 4 no server), naming the
 * server. A data directory whose SQLite store was never created is reported as such.
 */
export async function dataPlaneStatus(
  options: { json: boolean; dataDir?: string },
  io: CliIo,
): Promise<void> {
  const plane = resolveOrRefuse(options.dataDir ?? '.wharf');
  const { location } = plane;
  if (!options.json) {
    io.out(`store:    ${location.store}`);
    io.out(`blobs:    ${location.blobs}`);
    io.out(`evidence: ${location.artifacts}`);
  }
  const opened = await openExistingStore(plane);
  let check: DataPlaneCheck | undefined;
  try {
    if (opened !== undefined) check = await checkDataPlane(opened);
  } finally {
    await opened?.close();
  }
  if (options.json) {
    printJson(io, { ...location, connection: check === undefined ? 'not created yet' : 'ok', check });
    return;
  }
  if (check === undefined) io.out('status:   not created yet (the first run creates the store)');
  else
    io.out(
      `status:   connected; the store answered${check.blobs === 'none' ? '' : `, the blob store took, gave back and removed a probe body`}`,
    );
}

/**
 * `wharf status <workflowId>`: a running swarm's progress table (a worker answers the query);
 * for a finished swarm, failed or not, its result, read from Temporal without a worker; then
 * where its data lives. A wide swarm's answer is over 256 KiB and the worker stores it in the
 * output store: the client reads such answers from the configured store (`WHARF_STORE`), else
 * from the data directory's when it has one. Agent tasks' model usage (tokens, and cost when
 * priced) is shown per task and summed.
 */
export async function statusCommand(
  workflowId: string,
  options: { address?: string; namespace?: string; json: boolean; dataDir?: string },
  io: CliIo,
): Promise<void> {
  const plane = resolveOrRefuse(options.dataDir ?? '.wharf');
  const { connection, namespace, keyRing } = await connectServer(options);
  const opened = await openExistingStore(plane).catch(async (error: unknown) => {
    await connection.close();
    throw error;
  });
  const store = opened?.store;
  const where = () => io.out(`\nstore: ${plane.location.store} · blobs: ${plane.location.blobs}`);
  try {
    const wharf = new WharfClient({
      connection,
      namespace,
      keyRing,
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
        return where();
      }
    }
    const progress = await wharf.progress(workflowId).catch((error: Error) => {
      // A running swarm whose worker is gone answers no query: what its memo says still shows.
      if (description.status.name !== 'RUNNING') return notFound(error);
      // --json promises the run's progress: what the memo says is no such thing, so it is an
      // error (exit 5) whose message holds it, never text on stdout where JSON is parsed.
      if (options.json)
        throw new CliError('NO_WORKER', memoStatusLines(workflowId, description).join('\n'), {
          cause: error,
        });
      for (const line of memoStatusLines(workflowId, description)) io.out(line);
      for (const line of retryingLines(description.raw.pendingActivities ?? [])) io.out(`  ${line}`);
      return undefined;
    });
    if (progress === undefined) return where();
    if (options.json) return printJson(io, progress);
    io.out(`${progress.swarm}: ${progress.status} (step ${progress.step})`);
    for (const line of progressLines(progress, Date.now())) io.out(`  ${line}`);
    const usage = swarmUsage(progress.tasks);
    if (usage !== undefined) io.out(`model usage so far: ${formatUsage(usage)}`);
    // What holds its activities back while an outage lasts: their last failures.
    const retrying = retryingLines(description.raw.pendingActivities ?? []);
    if (retrying.length > 0) io.out(`\nRetrying (${retrying.length}):`);
    for (const line of retrying) io.out(`  ${line}`);
    // Whether the workers running its scripts sandbox them: their identity says.
    for (const identity of await queueWorkers(wharf, description.taskQueue)) io.out(`worker ${identity}`);
    const gates = pendingApprovals(progress);
    if (gates.length > 0) {
      io.out(`\nWaiting for approval (${gates.length}):`);
      for (const gate of gates) {
        const what = gate.call === undefined ? '' : ` calls ${gate.call.tool} ${gate.call.arguments}`;
        io.out(`  ${gate.task}${what}${gate.prompt === undefined ? '' : `: ${gate.prompt}`}`);
        io.out(`    ${approveCommand(workflowId, gate)}`);
      }
    }
    where();
  } finally {
    await opened?.close();
    await connection.close();
  }
}
