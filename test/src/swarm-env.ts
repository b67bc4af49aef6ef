import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleWorkflowCode, Worker, type WorkflowBundle } from '@temporalio/worker';
import { FsArtifactStore } from '@wharf/evidence';
import { WharfClient } from '@wharf/orchestrator/client';
import { createWharfDataConverter, type ModelRegistry } from '@wharf/orchestrator/node';
import { createWharfWorker, workflowsPath } from '@wharf/orchestrator/worker';
import { SqliteOutputStore } from '@wharf/output-store';
import type { ToolSet } from 'ai';
import { inject } from 'vitest';
import { quietLogger } from './quiet-logger.js';
import { connectTestEnv, type TemporalTestEnv, taskQueueFor } from './temporal-env.js';

let bundle: Promise<WorkflowBundle> | undefined;

/**
 * The real workflow bundle: the one the int and e2e global setup built for the whole run, else
 * (a file run without it) built here once per file. No `ignoreModules`: a transitive import
 * that breaks the sandbox fails the build.
 */
export function wharfBundle(): Promise<WorkflowBundle> {
  const built = inject('workflowBundlePath');
  bundle ??=
    built === undefined || built === ''
      ? bundleWorkflowCode({ workflowsPath, logger: quietLogger })
      : readFile(built, 'utf8').then((code) => ({ code }));
  return bundle;
}

/** Everything one swarm test needs: temp dir, SQLite store, artifact store, worker, client. */
export interface SwarmTestEnv {
  temporal: TemporalTestEnv;
  dir: string;
  store: SqliteOutputStore;
  artifacts: FsArtifactStore;
  wharf: WharfClient;
  taskQueue: string;
  /** Runs `fn` while a worker polls the test's task queue. */
  withWorker<TResult>(
    fn: () => Promise<TResult>,
    options?: { models?: ModelRegistry; tools?: ToolSet },
  ): Promise<TResult>;
  close(): Promise<void>;
}

/**
 * A swarm test environment on the run's Temporal dev server, or on `temporal` when given (the
 * time-skipping test server of `createTimeSkippingSwarmEnv`); `close()` closes it either way.
 *
 * @example
 * ```ts
 * const env = await createSwarmTestEnv('gates');
 * const { workflowId } = await env.wharf.startSwarm(definition);
 * const result = await env.withWorker(() => env.wharf.result(workflowId));
 * ```
 */
export async function createSwarmTestEnv(
  name: string,
  options: { temporal?: TemporalTestEnv } = {},
): Promise<SwarmTestEnv> {
  const temporal = options.temporal ?? (await connectTestEnv());
  const dir = await mkdtemp(join(tmpdir(), `wharf-${name}-`));
  const store = new SqliteOutputStore({ path: join(dir, 'outputs.db') });
  const artifacts = new FsArtifactStore({
    root: join(dir, 'artifacts'),
    spoolDirectories: [join(dir, 'work')],
  });
  const taskQueue = taskQueueFor(name);
  // The workers offload payloads over 256 KiB to this store by default: the client reads them there.
  const wharf = new WharfClient({
    connection: temporal.client.connection,
    taskQueue,
    dataConverter: createWharfDataConverter({ store }),
  });
  return {
    temporal,
    dir,
    store,
    artifacts,
    wharf,
    taskQueue,
    async withWorker(fn, options = {}) {
      const worker = await createWharfWorker({
        connection: temporal.nativeConnection,
        taskQueue,
        store,
        artifacts,
        workDir: join(dir, 'work'),
        workflowBundle: await wharfBundle(),
        ...(options.models === undefined ? {} : { models: options.models }),
        ...(options.tools === undefined ? {} : { tools: options.tools }),
      });
      return worker.runUntil(fn);
    },
    async close() {
      await store.close();
      await temporal.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Replays every run of a swarm's continue-as-new chain on one replay worker (one worker for
 * all the runs, not one each) and returns the runs whose replay failed, with why.
 *
 * @example
 * ```ts
 * expect(await replayRunChain(env, workflowId, runs)).toEqual([]);
 * ```
 */
export async function replayRunChain(
  env: SwarmTestEnv,
  workflowId: string,
  runs: readonly { runId: string }[],
): Promise<{ runId: string; error: string }[]> {
  async function* histories() {
    for (const run of runs) {
      const handle = env.temporal.client.workflow.getHandle(workflowId, run.runId);
      yield { workflowId, history: await handle.fetchHistory() };
    }
  }
  const failed: { runId: string; error: string }[] = [];
  let replayed = 0;
  const dataConverter = createWharfDataConverter({ store: env.store });
  for await (const result of Worker.runReplayHistories(
    { workflowBundle: await wharfBundle(), dataConverter },
    histories(),
  )) {
    replayed += 1;
    if (result.error !== undefined) failed.push({ runId: result.runId, error: String(result.error) });
  }
  if (replayed !== runs.length)
    throw new Error(`replayed ${replayed} of ${runs.length} runs of ${workflowId}`);
  return failed;
}
