import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getHeapStatistics } from 'node:v8';
import { type LogLevel, NativeConnection, Runtime } from '@temporalio/worker';
import { createModelRegistry, type ModelRegistry } from '@wharf/orchestrator/node';
import { startTracing } from '@wharf/orchestrator/tracing';
import {
  composeWorker,
  connectMcpServers,
  type McpServerConfig,
  type McpTools,
  type WharfTracing,
  WorkerSandbox,
} from '@wharf/orchestrator/worker';
import { type Logger, pino } from 'pino';
import { intakeLimits, type WorkerConfig } from './config.js';
import { dataPlaneFailure } from './data-plane-failure.js';
import { WorkerConfigError } from './worker-config-error.js';

/** A running worker process's parts. */
export interface RunningWorker {
  /** Health endpoint URL (`GET /healthz`). */
  healthUrl: string;
  intakeUrl: string;
  /** Resolves when the worker has stopped. */
  done: Promise<void>;
  /** Graceful stop: running subagents get the grace period, then are handed back to Temporal. */
  stop(): Promise<void>;
}

/** What {@link startWorker} takes besides the environment (for embedding it, and tests). */
export interface StartWorkerExtras {
  /**
   * The model registry; default `createModelRegistry()` (providers' API keys from the
   * environment) with `WHARF_MODEL`'s overrides.
   */
  models?: ModelRegistry;
  /**
   * A workflow module of your own to bundle instead of Wharf's (it re-exports Wharf's
   * workflows: `export * from '@wharf/workflows/bundle'`); default Wharf's own.
   */
  workflowsPath?: string;
}

/**
 * Starts a Wharf worker from its configuration: the stores (`WHARF_STORE`/`WHARF_BLOBS`, by
 * default in the data directory; opened and checked first, a store or bucket that cannot be
 * used is a `WorkerConfigError` `DATA_PLANE_UNAVAILABLE`), the models (`WHARF_MODEL` overrides
 * the definitions', and `WHARF_SUMMARIZER`, else `WHARF_MODEL`'s model, summarizes), the MCP
 * servers of `WHARF_MCP_SERVERS` (their tools are the
 * worker's, named `<server>_<tool>`; closed when it stops), an intake
 * server for subagents that `wharf emit`, the Temporal worker, a health endpoint, and
 * structured logs (pino, JSON lines).
 *
 * @example
 * ```ts
 * const worker = await startWorker(loadWorkerConfig(process.env));
 * process.once('SIGTERM', () => worker.stop());
 * ```
 */
export async function startWorker(
  config: WorkerConfig,
  logger: Logger = pino({ level: config.LOG_LEVEL }),
  extras: StartWorkerExtras = {},
): Promise<RunningWorker> {
  installRuntime(logger);
  const tracing =
    config.tracing === undefined
      ? undefined
      : await startTracing(config.tracing, { serviceName: 'wharf-worker' });
  // WHARF_SANDBOX=required without a sandbox stops the start here, naming why.
  const sandbox = workerSandbox(config);
  if (sandbox.status.state === 'unavailable') {
    logger.warn(
      { reason: sandbox.status.reason },
      'sandbox-unavailable: scripts, shell commands and MCP servers run unconfined',
    );
  }
  const mcp = await connectMcp(config.WHARF_MCP_SERVERS ?? {}, sandbox).catch(async (error: unknown) => {
    await tracing?.shutdown();
    throw error;
  });
  try {
    return await run(config, logger, extras, { mcp, tracing, sandbox });
  } catch (error) {
    await mcp.close();
    await tracing?.shutdown();
    throw error;
  }
}

async function run(
  config: WorkerConfig,
  logger: Logger,
  extras: StartWorkerExtras,
  { mcp, tracing, sandbox }: { mcp: McpTools; tracing: WharfTracing | undefined; sandbox: WorkerSandbox },
): Promise<RunningWorker> {
  const overrides = config.WHARF_MODEL;
  const summarizer = config.WHARF_SUMMARIZER ?? overrides?.default;
  const parts = await composeWorker({
    ...(tracing === undefined ? {} : { tracing }),
    models: extras.models ?? createModelRegistry(overrides === undefined ? {} : { overrides }),
    summarizer: summarizer ?? false,
    tools: mcp.tools,
    sandbox,
    dataDir: config.WHARF_DATA_DIR,
    ...(config.version === undefined ? {} : { version: config.version }),
    ...(config.WHARF_STORE === undefined ? {} : { store: config.WHARF_STORE }),
    ...(config.WHARF_BLOBS === undefined ? {} : { blobs: config.WHARF_BLOBS }),
    intake: {
      hostname: config.WHARF_INTAKE_HOST,
      port: config.WHARF_INTAKE_PORT,
      limits: intakeLimits(config),
    },
  }).catch((error: unknown) => {
    throw dataPlaneFailure(error) ?? error;
  });
  // Before taking any work: the store answers, and its blob store takes, gives back and
  // removes a probe body (a missing bucket or a wrong key fails here, not at the first EMIT).
  try {
    await parts.data.check();
  } catch (error) {
    await parts.close().catch(() => undefined);
    throw dataPlaneFailure(error) ?? error;
  }
  const { intake } = parts;
  const connection = await NativeConnection.connect(config.temporal.connection);
  // Ends the scripts a predecessor left running when it was killed outright (SIGKILL, OOM, power).
  const {
    worker,
    reaped,
    done: stopped,
  } = await parts.startWorker({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.WHARF_TASK_QUEUE,
    maxConcurrentActivities: config.WHARF_MAX_CONCURRENT,
    workerOptions: {
      shutdownGraceTime: config.WHARF_SHUTDOWN_GRACE_MS,
      ...(extras.workflowsPath === undefined ? {} : { workflowsPath: extras.workflowsPath }),
    },
    ...(config.WHARF_CACHE_DIR === undefined ? {} : { bundleCache: config.WHARF_CACHE_DIR }),
    ...(config.WHARF_GC_INTERVAL === undefined
      ? {}
      : {
          gc: {
            intervalMs: config.WHARF_GC_INTERVAL,
            policy: {
              ...(config.WHARF_GC_MAX_AGE === undefined ? {} : { olderThanMs: config.WHARF_GC_MAX_AGE }),
              ...(config.WHARF_GC_MAX_BYTES === undefined
                ? {}
                : { maxTotalBytes: config.WHARF_GC_MAX_BYTES }),
            },
            onReport: (report) =>
              logger[report.outputs.length > 0 ? 'info' : 'debug'](
                {
                  removed: report.outputs.length,
                  freedBytes: report.freedBytes,
                  runs: report.runs.map((run) => run.runId),
                  kept: report.kept,
                },
                'gc',
              ),
            onError: (error) => logger.error({ error: (error as Error).message }, 'gc-failed'),
          },
        }),
  });
  if (reaped.length > 0) logger.warn({ processGroups: reaped }, 'orphan-scripts-killed');
  const health = await listen(
    createServer((request, response) => {
      if (request.url !== '/healthz') {
        response.writeHead(404).end();
        return;
      }
      const state = worker.getState();
      const ok = state === 'RUNNING';
      response.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          status: ok ? 'ok' : 'unavailable',
          worker: state,
          taskQueue: config.WHARF_TASK_QUEUE,
          ...(config.version === undefined ? {} : { version: config.version }),
        }),
      );
    }),
    config.WHARF_HEALTH_PORT,
  );
  const healthUrl = `http://127.0.0.1:${(health.address() as AddressInfo).port}/healthz`;
  logger.info(
    {
      address: config.temporal.address,
      namespace: config.temporal.namespace,
      temporal: config.temporal.summary,
      tracing: config.tracing === undefined ? 'off' : config.tracing.exporters.join(','),
      taskQueue: config.WHARF_TASK_QUEUE,
      version:
        config.version === undefined
          ? 'unversioned'
          : `${config.version.deploymentName}:${config.version.buildId}`,
      intake: intake.url,
      health: healthUrl,
      store: parts.data.location.store,
      blobs: parts.data.location.blobs,
      tools: Object.keys(mcp.tools),
      sandbox: parts.sandbox.describe(),
      // Key ids only (WHARF_CODEC_KEYS / WHARF_CODEC_KEYS_FILE): never a key.
      encryption:
        parts.keyRing === undefined
          ? 'off'
          : `on (active ${parts.keyRing.activeKeyId}; ${parts.keyRing.keyIds.join(', ')})`,
      // The JavaScript heap's ceiling, as the Node flags that started the process set it.
      heapLimitMiB: Math.round(getHeapStatistics().heap_size_limit / 2 ** 20),
      ...(overrides === undefined ? {} : { models: overrides }),
      ...(summarizer === undefined ? {} : { summarizer }),
    },
    'worker-start',
  );
  const done = stopped.finally(async () => {
    await new Promise<void>((resolve) => health.close(() => resolve()));
    await connection.close();
    await parts.close();
    await mcp.close();
    await tracing?.shutdown();
    logger.info('worker-end');
  });
  return {
    healthUrl,
    intakeUrl: intake.url,
    done,
    async stop() {
      logger.info({ graceMs: config.WHARF_SHUTDOWN_GRACE_MS }, 'worker-stop');
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await done;
    },
  };
}

/** Connects each server of `WHARF_MCP_SERVERS`; one that fails is named, and the others closed. */
async function connectMcp(
  servers: Readonly<Record<string, McpServerConfig>>,
  sandbox: WorkerSandbox,
): Promise<McpTools> {
  const connected: McpTools[] = [];
  const closeAll = async () => {
    await Promise.allSettled(connected.map((server) => server.close()));
  };
  for (const [name, server] of Object.entries(servers)) {
    try {
      connected.push(await connectMcpServers({ [name]: server }, { sandbox }));
    } catch (error) {
      await closeAll();
      throw new WorkerConfigError(
        'MCP_UNAVAILABLE',
        `WHARF_MCP_SERVERS: MCP server "${name}" (${'url' in server ? server.url : server.command}) could not be connected: ${(error as Error).message}`,
        { cause: error, variables: ['WHARF_MCP_SERVERS'] },
      );
    }
  }
  return { tools: Object.assign({}, ...connected.map((server) => server.tools)), close: closeAll };
}

/** The worker's sandbox from `WHARF_SANDBOX*`; one that cannot be had when required is a config error. */
function workerSandbox(config: WorkerConfig): WorkerSandbox {
  try {
    return WorkerSandbox.create(WorkerSandbox.optionsFromEnv(process.env)).with({
      hidden: [config.WHARF_DATA_DIR],
    });
  } catch (error) {
    throw new WorkerConfigError('SANDBOX_UNAVAILABLE', (error as Error).message, {
      cause: error,
      variables: ['WHARF_SANDBOX'],
    });
  }
}

function listen(server: Server, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '0.0.0.0', () => resolve(server));
  });
}

/** Temporal's own logs go through pino too. */
function installRuntime(logger: Logger): void {
  try {
    Runtime.install({
      logger: {
        log: (level: LogLevel, message: string, meta?: Record<string, unknown>) =>
          logger[level === 'TRACE' ? 'trace' : (level.toLowerCase() as 'debug' | 'info' | 'warn' | 'error')](
            meta ?? {},
            message,
          ),
        trace: (message: string, meta?: Record<string, unknown>) => logger.trace(meta ?? {}, message),
        debug: (message: string, meta?: Record<string, unknown>) => logger.debug(meta ?? {}, message),
        info: (message: string, meta?: Record<string, unknown>) => logger.info(meta ?? {}, message),
        warn: (message: string, meta?: Record<string, unknown>) => logger.warn(meta ?? {}, message),
        error: (message: string, meta?: Record<string, unknown>) => logger.error(meta ?? {}, message),
      },
      // Core's own logs too, instead of Core's console logger on stdout.
      telemetryOptions: { logging: { forward: {}, filter: { core: 'WARN', other: 'ERROR' } } },
    });
  } catch {
    // already installed by the embedding application
  }
}
