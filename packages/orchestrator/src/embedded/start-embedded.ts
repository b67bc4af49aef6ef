import { randomBytes } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import {
  DEFAULT_TEMPORAL_ADDRESS,
  type DevServer,
  getFreePort,
  loadTemporalConfig,
  startDevServer,
  type TemporalConnectionOptions,
  WharfClient,
} from '@wharf/client';
import type { KeyRing } from '@wharf/codec';
import type { CodecServer } from '@wharf/codec/server';
import type { IntakeServer } from '@wharf/output-store';
import { type DataDir, type ModelRegistry, startDataPlaneCodecServer } from '@wharf/runtime';
import type { WharfTracing } from '@wharf/runtime/tracing';
import { tracingFromEnv } from '@wharf/runtime/tracing';
import { composeWorker, workflowBundleCacheDir } from '@wharf/runtime/worker';
import type { Summarizer } from '@wharf/stdio-limits';
import { wharfSearchAttributeKinds } from '@wharf/workflows';
import type { ToolSet } from 'ai';
import { z } from 'zod';
import { ensureSearchAttributes } from './search-attributes.js';
import { swarmOutcomeLogger } from './swarm-outcome-logger.js';

/** Options of {@link startEmbedded}. */
export interface EmbeddedOptions {
  /** Data directory. Default `.wharf`. */
  dataDir?: string;
  /**
   * Output store URL (`postgres://…`, `sqlite:///path` or a path). Default `WHARF_STORE`, else
   * `outputs.db` in the data directory. With a configured store, evidence is kept in it too.
   */
  store?: string;
  /** Where large bodies go (`s3://bucket/prefix?…`, `file:///dir`). Default `WHARF_BLOBS`. */
  blobs?: string;
  /**
   * A Temporal server to use. Default: the cluster Temporal's standard configuration names
   * (`loadTemporalConfig`: `TEMPORAL_ADDRESS`, `TEMPORAL_API_KEY`, TLS certificates, a profile
   * of the config file), which must answer; when it names none, the dev server another Wharf
   * process runs for this data directory (`dev.json`), else `127.0.0.1:7233` if it answers,
   * else a dev server is started (on 7233/8233 when free).
   */
  temporalAddress?: string;
  /** Default: `TEMPORAL_NAMESPACE` or the profile's, else `default`. */
  namespace?: string;
  /**
   * The task queue of the swarms this process starts and of its worker. Default: with a worker,
   * one of this process's own (`wharf-<pid>-<random>`, see {@link ownTaskQueue}), so no other
   * process's worker (another data plane, another environment) ever takes its tasks; without,
   * `wharf`, the queue `apps/worker` polls by default.
   */
  taskQueue?: string;
  /** Serve the Temporal Web UI when a dev server is started. Default true. */
  ui?: boolean;
  /**
   * Web UI base URL of the Temporal server in use, for `workflowUrl` links, when this call does
   * not start one (a dev server it starts brings its own). Default: the one `wharf dev` recorded
   * in this data directory for the same address, else none.
   */
  uiUrl?: string;
  /**
   * How long the worker's running steps get to finish once `stop()` is called, before they are
   * cancelled and handed back to Temporal, which retries them when a worker polls again.
   * Default 0.
   */
  shutdownGraceMs?: number;
  /**
   * Log a swarm that ends failed (`WharfSwarmFailed`) as one WARN line. Default true; a caller
   * that reports the failure itself (`wharf run`) turns it off. Other worker logs are kept.
   * Applies when this call installs Temporal's runtime (the first in a process that has none).
   */
  logSwarmFailures?: boolean;
  /** Run a worker in this process. Default true. */
  worker?: boolean;
  /**
   * Where the in-process worker keeps its workflow bundle, so that only the first start with a
   * given Wharf build spends seconds bundling (see `cachedWorkflowBundle`); `false` bundles at
   * every start. Default `workflowBundleCacheDir()`: `WHARF_CACHE_DIR`, else
   * `$XDG_CACHE_HOME/wharf`, else `~/.cache/wharf`.
   */
  bundleCache?: string | false;
  /** Most subagents the in-process worker runs at once (its activities). Default 8. */
  concurrency?: number;
  /** The worker's models. Default: environment keys, and `WHARF_MODEL`'s overrides (see `composeWorker`). */
  models?: ModelRegistry;
  /**
   * The worker's summarizer for `truncation_strategy: summary`: a `Summarizer`, a model id, or
   * `false`. Default `WHARF_SUMMARIZER`, else `WHARF_MODEL`'s model for every agent, else none.
   */
  summarizer?: Summarizer | string | false;
  /**
   * Tools the in-process worker's agents may select besides the built-ins (AI SDK tools, or
   * `connectMcpServers(…).tools`). YAML given to `wharf.startSwarm` is checked against them
   * (and the built-ins) when this process runs a worker; elsewhere parse swarms with
   * `{ tools: Object.keys(tools) }`.
   */
  tools?: ToolSet;
  /**
   * OpenTelemetry tracing of the worker and client. Default: what the `OTEL_*` variables say
   * (`tracingFromEnv`; off unless they name an exporter or endpoint), shut down by `stop()`.
   */
  tracing?: WharfTracing | false;
  /**
   * Payload encryption of the worker and the client, or `false` for none. Default: what
   * `WHARF_CODEC_KEYS` / `WHARF_CODEC_KEYS_FILE` hold, else none (see `composeWorker`).
   */
  keyRing?: KeyRing | false;
  /**
   * With encryption on and a dev server started here with its Web UI: a codec server for this
   * data plane on loopback (decrypting, opening External Storage references), the UI pointed at
   * it (`--ui-codec-endpoint`) and its URL in {@link Embedded.codecUrl}. Default true.
   */
  codecServer?: boolean;
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
  /**
   * The codec server this call started for the Web UI (encryption on, a dev server started
   * here): give it to `temporal workflow show --codec-endpoint` too. Undefined otherwise.
   */
  codecUrl: string | undefined;
  /** True when this process started the Temporal dev server. */
  startedServer: boolean;
  data: DataDir;
  intake: IntakeServer;
  wharf: WharfClient;
  /** Web UI link of one run (its event history), or of the runs of a workflow id without `runId`. */
  workflowUrl(workflowId: string, runId?: string): string | undefined;
  stop(): Promise<void>;
}

/** The dev server another Wharf process started for this data directory (`dev.json`), if any. */
async function readDevState(root: string): Promise<z.infer<typeof devStateSchema> | undefined> {
  try {
    const state = devStateSchema.safeParse(JSON.parse(await readFile(join(root, 'dev.json'), 'utf8')));
    return state.success ? state.data : undefined;
  } catch {
    return undefined;
  }
}

/** How long a configured cluster gets to answer before the command says none answers. */
const CONFIGURED_CONNECT_TIMEOUT_MS = 5_000;
/** How long the local address gets before a dev server is started instead. */
const LOCAL_PROBE_TIMEOUT_MS = 1_500;
const devStateSchema = z.object({ address: z.string().min(1), uiUrl: z.string().optional() });

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen({ port, host: '127.0.0.1', exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

/**
 * Whether the server answers within `timeoutMs`: short for the local address probed to decide
 * whether to start a dev server, longer for a configured cluster (a TLS handshake to a remote
 * cluster, or a loaded machine, can take more than a second and a half).
 */
async function reachable(server: TemporalConnectionOptions, timeoutMs: number): Promise<boolean> {
  try {
    const connection = await Connection.connect({ ...server, connectTimeout: timeoutMs });
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
 * The embedded default: the Temporal cluster Temporal's standard configuration names
 * (`loadTemporalConfig`), else a local Temporal dev server (SQLite file in the data directory,
 * Web UI on, Wharf's search attributes registered) unless one answers; the output store (SQLite
 * in the data directory, or what `store`/`blobs`/`WHARF_STORE`/`WHARF_BLOBS` name), the
 * artifact store, the EMIT intake server and a worker with Wharf's plugin (traced when the
 * `OTEL_*` variables ask), all in this process. A Temporal or tracing setting that cannot work
 * is an `InvalidConfigError` before anything opens. `stop()` shuts everything down in order:
 * the worker first (its running steps get `shutdownGraceMs`), the dev server last. Signals are
 * the application's to handle: the worker does not stop on SIGINT/SIGTERM by itself, so call
 * `stop()` from your handler (a dev server it started also stops when this process exits).
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
  // Bad Temporal or tracing settings are refused before anything is opened.
  const temporal = loadTemporalConfig({
    ...(options.temporalAddress === undefined ? {} : { address: options.temporalAddress }),
    ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
  });
  const tracing =
    options.tracing === undefined
      ? await tracingFromEnv(process.env, { serviceName: 'wharf' })
      : options.tracing || undefined;
  // Only a worker needs Temporal's Core runtime: one installed without one (`wharf run
  // --no-worker`) is never shut down, and its forwarded logs keep the process from exiting.
  if (options.worker !== false) quietRuntime({ logSwarmFailures: options.logSwarmFailures ?? true });
  const namespace = temporal.namespace;
  const taskQueue = options.taskQueue ?? (options.worker === false ? 'wharf' : ownTaskQueue());
  // The stores, the intake server, the converter and Wharf's plugin, put together as apps/worker does.
  const parts = await composeWorker({
    dataDir: options.dataDir ?? '.wharf',
    ...(options.store === undefined ? {} : { store: options.store }),
    ...(options.blobs === undefined ? {} : { blobs: options.blobs }),
    ...(options.models === undefined ? {} : { models: options.models }),
    ...(options.summarizer === undefined ? {} : { summarizer: options.summarizer }),
    ...(options.tools === undefined ? {} : { tools: options.tools }),
    ...(tracing === undefined ? {} : { tracing }),
    ...(options.keyRing === undefined ? {} : { keyRing: options.keyRing }),
  }).catch(async (error: unknown) => {
    if (options.tracing === undefined) await tracing?.shutdown();
    throw error;
  });
  const { data, intake } = parts;
  if (parts.sandbox.status.state === 'unavailable') {
    progress(
      `warning: no sandbox for scripts, shell commands and MCP servers (${parts.sandbox.status.reason})`,
    );
  }
  const cleanups: (() => Promise<void>)[] = [];
  // The last to run: spans of everything stopped before are exported.
  if (tracing !== undefined && options.tracing === undefined) cleanups.push(() => tracing.shutdown());
  cleanups.push(() => parts.close());
  const stop = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  };
  try {
    // A configured cluster must answer; otherwise the local dev server of this data directory.
    const running = temporal.configured ? undefined : await readDevState(data.root);
    let server: TemporalConnectionOptions = temporal.configured
      ? temporal.connection
      : { address: running?.address ?? DEFAULT_TEMPORAL_ADDRESS };
    let devServer: DevServer | undefined;
    let codecServer: CodecServer | undefined;
    let uiUrl: string | undefined =
      options.uiUrl ?? (running?.address === server.address ? running.uiUrl : undefined);
    if (
      !(await reachable(server, temporal.configured ? CONFIGURED_CONNECT_TIMEOUT_MS : LOCAL_PROBE_TIMEOUT_MS))
    ) {
      if (temporal.configured) {
        throw new Error(`no Temporal server answers at ${temporal.summary}`);
      }
      progress('starting a local Temporal dev server');
      // The usual ports when they are free, so other tools find the server where they expect it.
      const port = (await isFree(7233)) ? 7233 : undefined;
      const ui = options.ui ?? true;
      let uiPort = (await isFree(8233)) ? 8233 : undefined;
      if (ui && parts.keyRing !== undefined && (options.codecServer ?? true)) {
        // The UI's origin must be known to the codec server before the UI is started.
        uiPort ??= await getFreePort('127.0.0.1');
        codecServer = await startDataPlaneCodecServer({
          store: data.store,
          keyRing: parts.keyRing,
          allowedOrigins: [`http://127.0.0.1:${uiPort}`, `http://localhost:${uiPort}`],
        });
        const started = codecServer;
        cleanups.push(() => started.close());
        progress(`codec server for the Web UI at ${codecServer.url}`);
      }
      devServer = await startDevServer({
        dbFilename: data.temporalDb,
        namespace,
        ui,
        ...(codecServer === undefined ? {} : { uiCodecEndpoint: codecServer.url }),
        searchAttributes: wharfSearchAttributeKinds,
        ...(port === undefined ? {} : { port }),
        ...(uiPort === undefined ? {} : { uiPort }),
      });
      cleanups.push(() => (devServer as DevServer).stop());
      server = { address: devServer.address };
      uiUrl = devServer.uiUrl;
      const statePath = join(data.root, 'dev.json');
      await writeFile(
        statePath,
        `${JSON.stringify({ address: server.address, uiUrl, namespace, taskQueue, pid: process.pid })}\n`,
      );
      cleanups.push(() => rm(statePath, { force: true }));
    }
    const address = server.address;
    const connection = await Connection.connect(server);
    cleanups.push(() => connection.close());
    const added = await ensureSearchAttributes(connection, namespace);
    if (added.length > 0) progress(`registered search attributes ${added.join(', ')}`);

    if (options.worker ?? true) {
      const nativeConnection = await NativeConnection.connect(server);
      // Ends the scripts an earlier process on this data directory left running when killed.
      const { worker, done } = await parts.startWorker({
        connection: nativeConnection,
        taskQueue,
        namespace,
        ...(options.concurrency === undefined ? {} : { maxConcurrentActivities: options.concurrency }),
        ...(options.bundleCache === false
          ? {}
          : { bundleCache: options.bundleCache ?? workflowBundleCacheDir() }),
        ...(options.shutdownGraceMs === undefined
          ? {}
          : { workerOptions: { shutdownGraceTime: options.shutdownGraceMs } }),
      });
      cleanups.push(async () => {
        if (worker.getState() === 'RUNNING') worker.shutdown();
        await done.catch(() => {});
        await nativeConnection.close();
      });
    }

    // With its own worker, the tools are known: YAML is checked against them at its line.
    const workerTools = options.worker === false ? undefined : Object.keys(options.tools ?? {});
    // The plugin gives the client the workers' converter (and with tracing, its interceptors).
    const wharf = new WharfClient({
      connection,
      taskQueue,
      namespace,
      plugins: [parts.plugin],
      dataPlane: data.dataPlane,
      ...(workerTools === undefined ? {} : { tools: workerTools }),
    });
    return {
      address,
      namespace,
      taskQueue,
      uiUrl,
      codecUrl: codecServer?.url,
      startedServer: devServer !== undefined,
      data,
      intake,
      wharf,
      workflowUrl: (workflowId, runId) => {
        if (uiUrl === undefined) return undefined;
        const base = `${uiUrl}/namespaces/${encodeURIComponent(namespace)}/workflows`;
        return runId === undefined
          ? `${base}?query=${encodeURIComponent(`WorkflowId="${workflowId}"`)}`
          : `${base}/${encodeURIComponent(workflowId)}/${encodeURIComponent(runId)}/history`;
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * A task queue no other process polls: `wharf-<pid>-<12 random hex digits>`. The swarms an
 * embedded process starts run there, on its own worker; a later process gives a run left
 * behind a worker again by polling the same queue (`wharf resume`, or `apps/worker` with
 * `WHARF_TASK_QUEUE`), on the same data plane.
 *
 * @example
 * ```ts
 * ownTaskQueue(); // 'wharf-4711-9f86d081884c'
 * ```
 */
export function ownTaskQueue(): string {
  return `wharf-${process.pid}-${randomBytes(6).toString('hex')}`;
}

let runtimeChecked = false;

/**
 * Worker logs at WARN (a failed swarm in one line, or none) unless the application installed
 * its own runtime first. Signals are left to the application: Temporal's runtime would stop
 * the worker on SIGINT/SIGTERM behind its back (and keep the process waiting on a swarm no
 * worker runs any more); `wharf run` and `wharf dev` handle them and call `stop()`.
 */
function quietRuntime(options: { logSwarmFailures: boolean }): void {
  if (runtimeChecked) return;
  runtimeChecked = true;
  try {
    Runtime.install({
      logger: swarmOutcomeLogger(new DefaultLogger('WARN'), {
        swarmFailures: options.logSwarmFailures ? 'line' : 'none',
      }),
      // Core's own logs go through that logger (stderr) too: left to Core's console logger they
      // would be written to stdout, inside `wharf run --json`'s output.
      telemetryOptions: { logging: { forward: {}, filter: { core: 'WARN', other: 'ERROR' } } },
      shutdownSignals: [],
    });
  } catch {
    // A runtime exists already: the application chose its logger.
  }
}
