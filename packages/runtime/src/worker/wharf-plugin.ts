import { createRequire } from 'node:module';
import type { ClientOptions } from '@temporalio/client';
import type { DataConverter, WorkerDeploymentVersion } from '@temporalio/common';
import { SimplePlugin } from '@temporalio/plugin';
import type { BundleOptions, ReplayWorkerOptions, WorkerOptions } from '@temporalio/worker';
import type { KeyRing } from '@wharf/codec';
import { createWharfDataConverter } from '../converter/output-store-storage-driver.js';
import type { WharfTracing } from '../tracing/wharf-tracing.js';
import { type ActivityDependencies, createActivities } from './create-activities.js';
import { checkWorkerVersion, pinnedDeploymentOptions } from './worker-version.js';

/** Path of the bundled workflow entry point (the deterministic part of Wharf). */
export const workflowsPath = createRequire(import.meta.url).resolve('@wharf/workflows/bundle');

/** Options of {@link wharfPlugin}: what the activities need, and optionally tracing. */
export interface WharfPluginOptions extends ActivityDependencies {
  /**
   * The converter of the workers and clients. Default `createWharfDataConverter({ store, keyRing })`:
   * payloads over 256 KiB go to the output store and history holds a small claim.
   */
  dataConverter?: DataConverter;
  /**
   * The Worker Deployment version of the workers this plugin configures (`workerVersionFromEnv`
   * reads it from `WHARF_DEPLOYMENT_NAME` / `WHARF_BUILD_ID`): Worker Versioning on, workflows
   * PINNED (`pinnedDeploymentOptions`), unless the worker sets `workerDeploymentOptions` itself.
   * Default: unversioned.
   */
  version?: WorkerDeploymentVersion;
  /**
   * Payload encryption for the default converter (`loadKeyRing` reads `WHARF_CODEC_KEYS` /
   * `WHARF_CODEC_KEYS_FILE`). Default none. With a `dataConverter` of your own, build it with
   * the ring instead (`createWharfDataConverter({ store, keyRing })`).
   */
  keyRing?: KeyRing | undefined;
}

/**
 * Wharf as a Temporal plugin (`@temporalio/plugin`'s `SimplePlugin`). On a worker it adds
 * Wharf's activities and its data converter, and `swarmWorkflow` / `agentTaskWorkflow`
 * ({@link workflowsPath}) unless the worker has workflows of its own (then re-export Wharf's from
 * them: `export * from '@wharf/orchestrator/workflows'`), and with `version` Worker Versioning
 * (workflows pinned). On a client it adds the data converter.
 * With `tracing`, Temporal's OpenTelemetry plugin comes along: client, workflow (bundled only
 * then) and activity interceptors and the span sink, and the activities trace model and tool
 * calls.
 *
 * @example
 * ```ts
 * const wharf = wharfPlugin({ store, artifacts, workDir: '.wharf/work' });
 * const worker = await Worker.create({ connection, taskQueue: 'wharf', plugins: [wharf] });
 * const client = new Client({ connection: clientConnection, plugins: [wharf] });
 * ```
 */
export class WharfPlugin extends SimplePlugin {
  /** The converter this plugin gives workers and clients. */
  readonly dataConverter: DataConverter;
  /** The tracing this plugin adds, if any. */
  readonly tracing: WharfTracing | undefined;
  /** The deployment version it gives workers, if any. */
  readonly version: WorkerDeploymentVersion | undefined;

  constructor(options: WharfPluginOptions) {
    const dataConverter =
      options.dataConverter ?? createWharfDataConverter({ store: options.store, keyRing: options.keyRing });
    super({ name: 'wharf', dataConverter, activities: createActivities(options) });
    this.dataConverter = dataConverter;
    this.tracing = options.tracing;
    // Checked here, so a bad version fails before any worker is made.
    this.version = options.version === undefined ? undefined : checkWorkerVersion(options.version);
  }

  override configureWorker(options: WorkerOptions): WorkerOptions {
    const configured = withVersion(withWorkflows(super.configureWorker(options)), this.version);
    return this.tracing?.temporalPlugin.configureWorker(configured) ?? configured;
  }

  override configureReplayWorker(options: ReplayWorkerOptions): ReplayWorkerOptions {
    const configured = withWorkflows(super.configureReplayWorker(options));
    return this.tracing?.temporalPlugin.configureReplayWorker(configured) ?? configured;
  }

  override configureClient(options: ClientOptions): ClientOptions {
    const configured = super.configureClient(options);
    return this.tracing?.temporalPlugin.configureClient(configured) ?? configured;
  }

  override configureBundler(options: BundleOptions): BundleOptions {
    const configured = {
      ...super.configureBundler(options),
      workflowsPath: options.workflowsPath ?? workflowsPath,
    };
    return this.tracing?.temporalPlugin.configureBundler(configured) ?? configured;
  }
}

/** Wharf's workflows, unless the options bring their own (a path or a prebuilt bundle). */
function withWorkflows<TOptions extends { workflowsPath?: string; workflowBundle?: unknown }>(
  options: TOptions,
): TOptions {
  return options.workflowsPath === undefined && options.workflowBundle === undefined
    ? { ...options, workflowsPath }
    : options;
}

/** The worker's deployment options, else pinned ones of `version` (unversioned without one). */
function withVersion(options: WorkerOptions, version: WorkerDeploymentVersion | undefined): WorkerOptions {
  return version === undefined || options.workerDeploymentOptions !== undefined
    ? options
    : { ...options, workerDeploymentOptions: pinnedDeploymentOptions(version) };
}

/**
 * Wharf in one line on your own worker and client: `plugins: [wharfPlugin({ store, artifacts })]`.
 * See {@link WharfPlugin}.
 *
 * @example
 * ```ts
 * const tracing = await tracingFromEnv(); // from '@wharf/runtime/tracing'; off unless OTEL_* say so
 * const wharf = wharfPlugin({ store, artifacts, models: createModelRegistry(), tracing });
 * const worker = await Worker.create({ connection, taskQueue: 'wharf', plugins: [wharf] });
 * ```
 */
export function wharfPlugin(options: WharfPluginOptions): WharfPlugin {
  return new WharfPlugin(options);
}
