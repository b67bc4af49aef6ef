import { existsSync } from 'node:fs';
import {
  approveCommand,
  formatUsage,
  pendingApprovals,
  progressQuery,
  swarmUsage,
} from '@wharf/orchestrator';
import { loadTemporalConfig, WharfClient } from '@wharf/orchestrator/client';
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
import { approveCommandFor } from '../run-hints.js';
import { serverHint, withServerHint } from '../server-hint.js';
import { childMemoLines, memoStatusLines } from '../status-from-memo.js';

/** Who cancelled a run and when, as its memo records them (`wharf cancel --by`); none when absent. */
function cancellationOf(memo: Record<string, unknown> | undefined): {
  cancelledBy?: string;
  cancelledAt?: string;
} {
  return {
    ...(typeof memo?.cancelledBy === 'string' ? { cancelledBy: memo.cancelledBy } : {}),
    ...(typeof memo?.cancelledAt === 'string' ? { cancelledAt: memo.cancelledAt } : {}),
  };
}

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
  options: { json: boolean; dataDir?: string; address?: string; namespace?: string },
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
  const temporal = await temporalCheck(options);
  if (options.json) {
    printJson(io, {
      ...location,
      connection: check === undefined ? 'not created yet' : 'ok',
      check,
      temporal,
    });
  }
  if (!options.json) {
    if (check === undefined) io.out('status:   not created yet (the first run creates the store)');
    else
      io.out(
        `status:   connected; the store answered${check.blobs === 'none' ? '' : `, the blob store took, gave back and removed a probe body`}`,
      );
    io.out(
      `temporal: ${temporal.server} (namespace ${temporal.namespace}): ${temporal.ok ? 'answered' : temporal.error}`,
    );
  }
  if (!temporal.ok)
    throw new CliError(
      temporal.code,
      `Temporal failed the check: ${temporal.error}${temporal.code === 'UNREACHABLE' ? `; ${serverHint(undefined, options.dataDir ?? '.wharf')}` : ''}`,
    );
}

/** What `wharf status` found of the Temporal server: it answered for the namespace, or what failed. */
type TemporalCheck = { server: string; namespace: string } & (
  | { ok: true }
  | { ok: false; code: 'UNREACHABLE' | 'NOT_FOUND' | 'USAGE'; error: string }
);

/** Connects as every command does and asks the server about the namespace (auth and namespace included). */
async function temporalCheck(options: { address?: string; namespace?: string }): Promise<TemporalCheck> {
  const temporal = loadTemporalConfig({
    ...(options.address === undefined ? {} : { address: options.address }),
    ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
  });
  const where = { server: temporal.address, namespace: temporal.namespace };
  let connection: Awaited<ReturnType<typeof connectServer>>['connection'];
  try {
    ({ connection } = await connectServer(options));
  } catch (error) {
    const code = CliError.isInstance(error) && error.code === 'USAGE' ? 'USAGE' : 'UNREACHABLE';
    return { ...where, ok: false, code, error: error instanceof Error ? error.message : String(error) };
  }
  try {
    await connection.withDeadline(Date.now() + 3_000, () =>
      connection.workflowService.describeNamespace({ namespace: temporal.namespace }),
    );
    return { ...where, ok: true };
  } catch (error) {
    const grpc = (error as { code?: number }).code;
    const message = error instanceof Error ? error.message : String(error);
    // gRPC 5 NOT_FOUND: no such namespace; 7 and 16: the server refused the credentials.
    if (grpc === 5)
      return {
        ...where,
        ok: false,
        code: 'NOT_FOUND',
        error: `no namespace ${temporal.namespace}: ${message}`,
      };
    if (grpc === 7 || grpc === 16)
      return {
        ...where,
        ok: false,
        code: 'USAGE',
        error: `the server answered but refused the credentials: ${message}`,
      };
    return { ...where, ok: false, code: 'UNREACHABLE', error: message };
  } finally {
    await connection.close();
  }
}

/** How long `wharf status` waits for a worker to answer its query before reading the memo. */
export const QUERY_WAIT_MS = 1_000;

/** How long it then gives the run's whole progress (child runs, agents) once its worker answered. */
export const ANSWERED_WAIT_MS = 30_000;

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
  const { connection, namespace, keyRing } = await withServerHint(
    connectServer(options),
    workflowId,
    options.dataDir ?? '.wharf',
  );
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
    if (description.status.name !== 'RUNNING') {
      // Ended without a swarm result (terminated, cancelled, timed out): it reads like a finished
      // run, from its memo; no worker is asked (none would answer).
      const ended = description.status.name.toLowerCase();
      const swarm = typeof description.memo?.swarm === 'string' ? description.memo.swarm : workflowId;
      const cancelled = cancellationOf(description.memo);
      if (options.json)
        return printJson(io, { workflowId, swarm, status: ended, ...cancelled, result: null });
      const who = cancelled.cancelledBy === undefined ? '' : ` by ${cancelled.cancelledBy}`;
      const when = cancelled.cancelledAt === undefined ? '' : ` at ${cancelled.cancelledAt}`;
      io.out(`${swarm}: ${ended}${who}${when} (it ended without a swarm result)`);
      return where();
    }
    // A worker answers a query at once; a run no worker serves (gone a second ago or never
    // there) would keep the query waiting: after QUERY_WAIT_MS its memo is read instead. Once
    // its worker has answered, the whole progress (its child swarm runs', its agents' heartbeats)
    // is read with the time it takes: a busy machine must not drop a child's gates from it.
    const progress = await connection
      .withDeadline(Date.now() + QUERY_WAIT_MS, () =>
        wharf.client.workflow.getHandle(workflowId).query(progressQuery),
      )
      .then(() => connection.withDeadline(Date.now() + ANSWERED_WAIT_MS, () => wharf.progress(workflowId)))
      .catch((error: Error) => {
        // --json promises the run's progress: what the memo says is no such thing, so it is an
        // error (exit 5) whose message holds it, never text on stdout where JSON is parsed.
        if (options.json)
          throw new CliError('NO_WORKER', memoStatusLines(workflowId, description).join('\n'), {
            cause: error,
          });
        return undefined;
      });
    if (progress === undefined) {
      // What its swarm: tasks' child runs wait for, from their memos too: a child's gate makes
      // the run read `waiting`, as its live status would.
      const describe = (id: string) =>
        wharf.client.workflow
          .getHandle(id)
          .describe()
          .catch(() => undefined);
      const children = await childMemoLines(describe, workflowId, description);
      for (const line of memoStatusLines(workflowId, description, undefined, children.waiting)) io.out(line);
      for (const line of children.lines) io.out(line);
      const retrying = retryingLines(description.raw.pendingActivities ?? []);
      if (retrying.length > 0) io.out(`\nRetrying (${retrying.length}):`);
      for (const line of retrying) io.out(`  ${line}`);
      return where();
    }
    if (options.json) return printJson(io, progress);
    io.out(`${progress.swarm}: ${progress.status} (step ${progress.step})`);
    // The table's approval notes name this run (and a server other than the default).
    const approve = approveCommandFor(workflowId, options.address ?? loadTemporalConfig({}).address);
    for (const line of progressLines(progress, Date.now(), { approveCommand: approve })) io.out(`  ${line}`);
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
