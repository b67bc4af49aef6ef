import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import { createIntakeServer, type IntakeServer } from '@wharf/output-store';
import { WharfClient } from '../client/wharf-client.js';
import { type DevServer, startDevServer } from '../dev-server/start-dev-server.js';
import type { ModelRegistry } from '../models/model-registry.js';
import { wharfSearchAttributeKinds } from '../shared/search-attributes.js';
import { createWharfWorker } from '../worker/create-wharf-worker.js';
import { type DataDir, openDataDir } from './data-dir.js';
import { ensureSearchAttributes } from './search-attributes.js';
import { spawnCredentials } from './spawn-credentials.js';

/** Options of {@link startEmbedded}. */
export interface EmbeddedOptions {
  /** Data directory. Default `.wharf`. */
  dataDir?: string;
  /** A Temporal server to use. Default: `127.0.0.1:7233` if it answers, else a dev server is started. */
  temporalAddress?: string;
  namespace?: string;
  /** Default `wharf`. */
  taskQueue?: string;
  /** Serve the Temporal Web UI when a dev server is started. Default true. */
  ui?: boolean;
  /** Run a worker in this process. Default true. */
  worker?: boolean;
  models?: ModelRegistry;
  /** Progress lines (starting the server, ...). */
  onProgress?: (message: string) => void;
}

/** The running embedded default. */
export interface Embedded {
  address: string;
  namespace: string;
  taskQueue: string;
  /** Web UI base URL, when known. */
  uiUrl: string | undefined;
  /** True when this process started the Temporal dev server. */
  startedServer: boolean;
  data: DataDir;
  intake: IntakeServer;
  wharf: WharfClient;
  /** Web UI link of one workflow. */
  workflowUrl(workflowId: string): string | undefined;
  stop(): Promise<void>;
}

async function reachable(address: string): Promise<boolean> {
  try {
    const connection = await Connection.connect({ address, connectTimeout: 1_500 });
    try {
      await connection.workflowService.getSystemInfo({});
      return true;
    } finally {
      await connection.close();
    }
  } catch {
    return false;
  }
}

/**
 * The embedded default: a local Temporal dev server (SQLite file in the data directory, Web
 * UI on, Wharf's search attributes registered) unless one answers, the SQLite output store,
 * the artifact store, the EMIT intake server and a worker, all in this process. `stop()`
 * shuts everything down in order.
 *
 * @example
 * ```ts
 * const wharf = await startEmbedded({ onProgress: console.log });
 * const { workflowId } = await wharf.wharf.startSwarm(yamlText);
 * console.log(wharf.workflowUrl(workflowId));
 * ```
 */
export async function startEmbedded(options: EmbeddedOptions = {}): Promise<Embedded> {
  const progress = options.onProgress ?? (() => {});
  quietRuntime();
  const namespace = options.namespace ?? 'default';
  const taskQueue = options.taskQueue ?? 'wharf';
  const data = await openDataDir(options.dataDir ?? '.wharf');
  const cleanups: (() => Promise<void>)[] = [() => data.close()];
  const stop = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  };
  try {
    let address = options.temporalAddress ?? process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233';
    let server: DevServer | undefined;
    let uiUrl: string | undefined;
    if (!(await reachable(address))) {
      if (options.temporalAddress !== undefined) {
        throw new Error(`no Temporal server answers at ${address}`);
      }
      progress('starting a local Temporal dev server');
      server = await startDevServer({
        dbFilename: data.temporalDb,
        namespace,
        ui: options.ui ?? true,
        searchAttributes: wharfSearchAttributeKinds,
      });
      cleanups.push(() => (server as DevServer).stop());
      address = server.address;
      uiUrl = server.uiUrl;
      await writeFile(
        join(data.root, 'dev.json'),
        `${JSON.stringify({ address, uiUrl, namespace, taskQueue, pid: process.pid })}\n`,
      );
    }
    const connection = await Connection.connect({ address });
    cleanups.push(() => connection.close());
    const added = await ensureSearchAttributes(connection, namespace);
    if (added.length > 0) progress(`registered search attributes ${added.join(', ')}`);

    const intake = await createIntakeServer({ store: data.store, secret: data.secret });
    cleanups.push(() => intake.close());

    if (options.worker ?? true) {
      const nativeConnection = await NativeConnection.connect({ address });
      const worker: Worker = await createWharfWorker({
        connection: nativeConnection,
        taskQueue,
        namespace,
        store: data.store,
        artifacts: data.artifacts,
        workDir: data.workDir,
        spawnEnv: spawnCredentials({ intakeUrl: intake.url, secret: data.secret }),
        ...(options.models === undefined ? {} : { models: options.models }),
      });
      const running = worker.run();
      cleanups.push(async () => {
        if (worker.getState() === 'RUNNING') worker.shutdown();
        await running.catch(() => {});
        await nativeConnection.close();
      });
    }

    const wharf = new WharfClient({ connection, taskQueue, namespace });
    return {
      address,
      namespace,
      taskQueue,
      uiUrl,
      startedServer: server !== undefined,
      data,
      intake,
      wharf,
      workflowUrl: (workflowId) =>
        uiUrl === undefined
          ? undefined
          : `${uiUrl}/namespaces/${namespace}/workflows/${encodeURIComponent(workflowId)}`,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

let runtimeChecked = false;

/** Worker logs at WARN unless the application installed its own runtime first. */
function quietRuntime(): void {
  if (runtimeChecked) return;
  runtimeChecked = true;
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // A runtime exists already: the application chose its logger.
  }
}
