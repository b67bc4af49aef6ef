import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataConverter, WorkerDeploymentVersion } from '@temporalio/common';
import type { NativeConnection, Worker, WorkerOptions } from '@temporalio/worker';
import { type KeyRing, loadKeyRing } from '@wharf/codec';
import { createIntakeServer, type IntakeServer, type IntakeServerOptions } from '@wharf/output-store';
import { ProcessGroupRegistry, type Summarizer } from '@wharf/stdio-limits';
import type { ToolSet } from 'ai';
import { spawnCredentials } from '../activities/spawn-credentials.js';
import { WorkerSandbox, type WorkerSandboxOptions } from '../activities/worker-sandbox.js';
import { createWharfDataConverter } from '../converter/output-store-storage-driver.js';
import { type GcScheduleOptions, startGcSchedule } from '../gc/gc-schedule.js';
import { createModelRegistry, type ModelRegistry } from '../models/model-registry.js';
import { modelSettingsFromEnv, registrySummarizer } from '../models/model-settings.js';
import type { WharfTracing } from '../tracing/wharf-tracing.js';
import { createWorkerWith } from './create-wharf-worker.js';
import { type DataDir, type DataPlaneOptions, openDataDir } from './data-dir.js';
import { type WharfPlugin, wharfPlugin } from './wharf-plugin.js';

/**
 * Limits of the EMIT intake server passed through to `createIntakeServer` (its defaults apply
 * to any left out): header, whole-request and idle timeouts, concurrent `/v1` requests, body
 * cap, uploads in progress per spawn and per run, and the minimum upload pace.
 *
 * @example
 * ```ts
 * const limits: IntakeLimits = { maxConcurrentRequests: 64, maxUploadsPerRun: 32 };
 * ```
 */
export type IntakeLimits = Pick<
  IntakeServerOptions,
  | 'headersTimeoutMs'
  | 'requestTimeoutMs'
  | 'idleTimeoutMs'
  | 'maxConcurrentRequests'
  | 'maxBodyBytes'
  | 'maxUploadsPerSpawn'
  | 'maxUploadsPerRun'
  | 'uploadGraceMs'
  | 'uploadRateWindowMs'
  | 'minUploadBytesPerSecond'
>;

/**
 * Options of {@link composeWorker}. `store` and `blobs` (else `WHARF_STORE` / `WHARF_BLOBS`
 * from `env`) say where outputs and evidence live; by default in the data directory.
 */
export interface ComposeWorkerOptions extends DataPlaneOptions {
  /**
   * Data directory: `work/`, `secret`, `process-groups/`, and by default the data plane
   * (`outputs.db`, `artifacts/`). Each machine has its own; the data plane may be shared.
   */
  dataDir: string;
  /** Where the EMIT intake server listens (default `127.0.0.1`, any free port) and its limits. */
  intake?: { hostname?: string; port?: number; limits?: IntakeLimits };
  /**
   * Model ids → AI SDK models. Default `createModelRegistry({ overrides })` with the overrides of
   * `WHARF_MODEL` from `env`: this worker then runs agents on those models.
   */
  models?: ModelRegistry;
  /**
   * What summarizes a script's stdout under `truncation_strategy: summary`: a `Summarizer`, or a
   * model id resolved through `models` when first needed, or `false` for none. Default
   * `WHARF_SUMMARIZER` from `env`, else the model `WHARF_MODEL` gives every agent, else none.
   */
  summarizer?: Summarizer | string | false;
  /** OpenTelemetry tracing (`tracingFromEnv()`); default off. */
  tracing?: WharfTracing;
  /** Tools agents may select besides the built-ins (see `createWharfWorker`). */
  tools?: ToolSet;
  /**
   * How scripts, the `shell` tool and stdio MCP servers are confined (see `WorkerSandbox`).
   * Default: the `WHARF_SANDBOX*` variables of `env` (else `process.env`): a sandbox where the
   * machine allows one. The data directory is always hidden from it, and the intake reached
   * over a Unix socket in the data directory.
   */
  sandbox?: WorkerSandboxOptions | WorkerSandbox;
  /**
   * The Worker Deployment version of this worker (`workerVersionFromEnv` reads
   * `WHARF_DEPLOYMENT_NAME` / `WHARF_BUILD_ID`): Worker Versioning on, workflows pinned to the
   * version they started on (see `wharfPlugin`). Default: unversioned, as the embedded mode and
   * tests run; never read from `env`, since a versioned worker takes no workflow task until its
   * version is made current.
   */
  version?: WorkerDeploymentVersion;
  /**
   * Payload encryption: the key ring every payload and failure message is encrypted with, or
   * `false` for none. Default: what `WHARF_CODEC_KEYS` / `WHARF_CODEC_KEYS_FILE` of `env` (else
   * `process.env`) hold, else none. A malformed ring is an `InvalidKeyRingError` before anything opens.
   */
  keyRing?: KeyRing | false;
}

/** What {@link ComposedWorker.startWorker} takes: where the worker polls, and how much it runs. */
export interface StartComposedWorkerOptions {
  connection: NativeConnection;
  namespace?: string;
  /** Default `wharf`. */
  taskQueue?: string;
  /** Most subagents at once. Default 8. */
  maxConcurrentActivities?: number;
  workerOptions?: Partial<WorkerOptions>;
  /**
   * Keep the workflow bundle in this folder and load it from there at the next start (see
   * `cachedWorkflowBundle`). Default: bundle at every start.
   */
  bundleCache?: string;
  /**
   * Collect garbage in the data directory while the worker runs: every `intervalMs`, remove the
   * outputs `policy` says (and the evidence of runs left without any). Default: off.
   */
  gc?: Omit<GcScheduleOptions, 'store' | 'artifacts'>;
}

/** A worker started by {@link ComposedWorker.startWorker}. */
export interface ComposedWorkerRun {
  worker: Worker;
  /** Process groups of scripts a killed predecessor left running, ended before the worker started. */
  reaped: number[];
  /** Resolves when the worker has stopped and the scripts it left are ended. */
  done: Promise<void>;
}

/** The stores, the intake server and the data converter of one data directory. */
export interface ComposedWorker {
  data: DataDir;
  intake: IntakeServer;
  /** Whether scripts run sandboxed (`sandbox.status`; say so when they do not). */
  sandbox: WorkerSandbox;
  /** Offloads payloads over 256 KiB to `data.store` (encrypted with `keyRing`); give clients the same one. */
  dataConverter: DataConverter;
  /** The key ring payloads are encrypted with; undefined when encryption is off. */
  keyRing: KeyRing | undefined;
  /**
   * Wharf's plugin on these parts: what `startWorker` runs, and what a client of this data
   * plane takes (`plugins: [parts.plugin]`: the converter, and with tracing its interceptors).
   */
  plugin: WharfPlugin;
  /** Runs a worker on these parts (one per composition). */
  startWorker(options: StartComposedWorkerOptions): Promise<ComposedWorkerRun>;
  /** Closes the intake server, then the stores. Stop the worker first. */
  close(): Promise<void>;
}

/**
 * The one place a Wharf worker process is put together, used by `startEmbedded` and by
 * `apps/worker`: opens the output store and artifact store the configuration names
 * (PostgreSQL or SQLite, S3 or a directory; by default SQLite in the data directory, see
 * `openDataDir`), starts the EMIT
 * intake server on them, and builds the data converter and {@link wharfPlugin} on them (the
 * stores, the data plane, spawn credentials for the intake server, the converter, the models,
 * tracing); `startWorker` then ends the scripts a killed predecessor left (`process-groups/`),
 * runs a worker with that plugin (as `createWharfWorker` does), and (with `gc`) a scheduled
 * collection of the data directory's outputs. When the worker stops, the schedule stops and the
 * scripts it leaves are ended too.
 *
 * @example
 * ```ts
 * const parts = await composeWorker({
 *   dataDir: '.wharf',
 *   store: 'postgres://wharf@db:5432/wharf', // else WHARF_STORE, else .wharf/outputs.db
 *   blobs: 's3://wharf/outputs?region=eu-west-1', // else WHARF_BLOBS
 *   models: createModelRegistry(),
 * });
 * const { done } = await parts.startWorker({ connection: await NativeConnection.connect() });
 * await done;
 * await parts.close();
 * ```
 */
export async function composeWorker(options: ComposeWorkerOptions): Promise<ComposedWorker> {
  // Bad WHARF_MODEL or WHARF_SUMMARIZER values fail here, before any store is opened.
  const { models, summarizer } = workerModels(options);
  // So does a malformed WHARF_CODEC_KEYS or a key file others may read.
  const keyRing =
    options.keyRing === undefined
      ? await loadKeyRing({ env: options.env ?? process.env })
      : options.keyRing || undefined;
  // WHARF_SANDBOX=required without a sandbox fails here, before anything is opened.
  const detected =
    options.sandbox instanceof WorkerSandbox
      ? options.sandbox
      : WorkerSandbox.create(options.sandbox ?? WorkerSandbox.optionsFromEnv(options.env ?? process.env));
  const data = await openDataDir(options.dataDir, {
    ...(options.store === undefined ? {} : { store: options.store }),
    ...(options.blobs === undefined ? {} : { blobs: options.blobs }),
    ...(options.env === undefined ? {} : { env: options.env }),
  });
  let intake: IntakeServer;
  try {
    intake = await createIntakeServer({
      store: data.store,
      secret: data.secret,
      ...(options.intake?.hostname === undefined ? {} : { hostname: options.intake.hostname }),
      ...(options.intake?.port === undefined ? {} : { port: options.intake.port }),
      ...(detected.status.state === 'on' ? { socketPath: intakeSocketPath(data.root) } : {}),
      ...options.intake?.limits,
    });
  } catch (error) {
    await data.close();
    throw error;
  }
  const dataConverter = createWharfDataConverter({ store: data.store, keyRing });
  const processGroups = new ProcessGroupRegistry(join(data.root, 'process-groups'));
  const sandbox = detected.with({
    hidden: [data.root, data.workDir],
    ...(intake.socketPath === undefined ? {} : { intakeSocket: intake.socketPath }),
  });
  const plugin = wharfPlugin({
    store: data.store,
    artifacts: data.artifacts,
    dataPlane: data.dataPlane,
    workDir: data.workDir,
    dataConverter,
    spawnEnv: spawnCredentials({ intakeUrl: intake.url, secret: data.secret }),
    processGroups,
    sandbox,
    models,
    ...(summarizer === undefined ? {} : { summarizer }),
    ...(options.tools === undefined ? {} : { tools: options.tools }),
    ...(options.tracing === undefined ? {} : { tracing: options.tracing }),
    ...(options.version === undefined ? {} : { version: options.version }),
  });
  return {
    data,
    intake,
    sandbox,
    dataConverter,
    keyRing,
    plugin,
    async startWorker(start) {
      const reaped = await processGroups.reap();
      const worker = await createWorkerWith(plugin, {
        connection: start.connection,
        ...(start.namespace === undefined ? {} : { namespace: start.namespace }),
        ...(start.taskQueue === undefined ? {} : { taskQueue: start.taskQueue }),
        ...(start.maxConcurrentActivities === undefined
          ? {}
          : { maxConcurrentActivities: start.maxConcurrentActivities }),
        // The identity `wharf status` lists says whether this worker's scripts run sandboxed.
        workerOptions: {
          identity: `${process.pid}@${hostname()} (${sandbox.describe()})`,
          ...start.workerOptions,
        },
        ...(start.bundleCache === undefined ? {} : { bundleCache: start.bundleCache }),
      });
      const gc =
        start.gc === undefined
          ? undefined
          : startGcSchedule({ ...start.gc, store: data.store, artifacts: data.artifacts });
      const done = worker.run().finally(async () => {
        await gc?.stop();
        // Running scripts were cancelled after the grace period; end whatever of them is left.
        await processGroups.reap({ graceMs: 1_000 });
      });
      return { worker, reaped, done };
    },
    async close() {
      await intake.close();
      await data.close();
    },
  };
}

/** The registry and summarizer of a composed worker, from its options or else its environment. */
function workerModels(options: ComposeWorkerOptions): { models: ModelRegistry; summarizer?: Summarizer } {
  const needsEnv = options.models === undefined || options.summarizer === undefined;
  const settings = needsEnv ? modelSettingsFromEnv(options.env ?? process.env) : {};
  const models =
    options.models ??
    createModelRegistry({
      ...(options.env === undefined ? {} : { env: options.env }),
      ...(settings.overrides === undefined ? {} : { overrides: settings.overrides }),
    });
  const chosen = options.summarizer ?? settings.summarizer ?? false;
  if (chosen === false) return { models };
  return { models, summarizer: typeof chosen === 'string' ? registrySummarizer(models, chosen) : chosen };
}

/**
 * The intake's Unix socket: in the data directory, one per worker process, or in the temporary
 * directory when that path is too long for a socket (108 bytes on Linux).
 */
function intakeSocketPath(dataRoot: string): string {
  const inDataDir = join(dataRoot, `intake-${process.pid}.sock`);
  return Buffer.byteLength(inDataDir) < 100 ? inDataDir : join(tmpdir(), `wharf-intake-${process.pid}.sock`);
}
