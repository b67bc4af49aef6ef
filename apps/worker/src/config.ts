import { InvalidConfigError, loadTemporalConfig, type TemporalConfig } from '@wharf/orchestrator/client';
import { readTracingEnv, type TracingSettings } from '@wharf/orchestrator/tracing';
import {
  type IntakeLimits,
  parseAge,
  parseSize,
  passEnvNames,
  WorkerVersionError,
  workerVersionFromEnv,
} from '@wharf/orchestrator/worker';
import { parseBlobsUrl, parseStoreUrl } from '@wharf/output-store/config';
import { z } from 'zod';
import { dataPlaneUrl, emptyAsUnset, optionalText } from './env-values.js';
import { mcpServersVariable } from './mcp-servers-variable.js';
import { modelOverridesVariable, summarizerVariable } from './model-variables.js';
import { envIssues } from './read-env.js';
import { WorkerConfigError } from './worker-config-error.js';

const port = z.coerce.number().int().min(0).max(65_535);
/**
 * An optional value parsed by `parse`, whose typed error becomes the issue's message. Empty
 * counts as unset, as Compose's `${VAR:-}` passes an unset variable.
 */
const parsed = (parse: (text: string, what: string) => number, name: string) =>
  emptyAsUnset(
    z
      .string()
      .transform((text, context) => {
        try {
          return parse(text, name);
        } catch (error) {
          context.addIssue({ code: 'custom', message: (error as Error).message });
          return z.NEVER;
        }
      })
      .optional(),
  );

/** A positive whole number below `max`; unset leaves the intake's own default. */
const positive = (max: number) => z.coerce.number().int().min(1).max(max).optional();
const DAY_MS = 86_400_000;

/**
 * The worker's own variables, validated. The cluster (`TEMPORAL_*`, a config-file profile) is
 * read by `loadTemporalConfig`, tracing (`OTEL_*`) by `readTracingEnv`.
 */
export const workerEnvSchema = z
  .object({
    WHARF_TASK_QUEUE: z.string().min(1).default('wharf'),
    /** Data directory: work/, secret, process-groups/, and by default outputs.db and artifacts/. */
    WHARF_DATA_DIR: z.string().min(1).default('.wharf'),
    /**
     * The output store shared by workers on several machines: `postgres://…`, `sqlite:///path`
     * or a path. Unset: `outputs.db` in the data directory. Evidence is kept in it too.
     */
    WHARF_STORE: dataPlaneUrl('WHARF_STORE', parseStoreUrl),
    /** Where large bodies go: `s3://bucket/prefix?region=…` (AWS credentials from `AWS_*`) or `file:///dir`. */
    WHARF_BLOBS: dataPlaneUrl('WHARF_BLOBS', parseBlobsUrl),
    /** Port of the EMIT intake server this worker runs for its subagents; 0 = any free port. */
    WHARF_INTAKE_PORT: port.default(0),
    WHARF_INTAKE_HOST: z.string().min(1).default('127.0.0.1'),
    /** Intake limits (see `createIntakeServer`); unset keeps the intake's default. */
    WHARF_INTAKE_HEADERS_TIMEOUT_MS: positive(DAY_MS),
    WHARF_INTAKE_REQUEST_TIMEOUT_MS: positive(DAY_MS),
    WHARF_INTAKE_IDLE_TIMEOUT_MS: positive(DAY_MS),
    WHARF_INTAKE_MAX_CONCURRENT_REQUESTS: positive(10_000),
    WHARF_INTAKE_MAX_BODY_BYTES: positive(Number.MAX_SAFE_INTEGER),
    /** Health endpoint (`GET /healthz`); 0 = any free port. */
    WHARF_HEALTH_PORT: port.default(0),
    WHARF_MAX_CONCURRENT: z.coerce.number().int().min(1).max(2_000).default(8),
    /** How long SIGTERM waits for running subagents before handing them back to Temporal. */
    WHARF_SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(30_000),
    /**
     * Keep the workflow bundle here and load it at the next start with the same Wharf build
     * (`cachedWorkflowBundle`); unset: bundle at every start. Empty counts as unset.
     */
    WHARF_CACHE_DIR: optionalText,
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace']).default('info'),
    /** Collect garbage in the output store this often (`30m`, `1h`, `1d`); unset = never. */
    WHARF_GC_INTERVAL: parsed(parseAge, 'WHARF_GC_INTERVAL'),
    /** Each collection removes outputs stored longer ago than this (`7d`). */
    WHARF_GC_MAX_AGE: parsed(parseAge, 'WHARF_GC_MAX_AGE'),
    /** Then the oldest outputs until the store holds at most this (`10GiB`). */
    WHARF_GC_MAX_BYTES: parsed(parseSize, 'WHARF_GC_MAX_BYTES'),
    /** MCP servers whose tools agents may select (JSON, or a JSON file's path): see the README. */
    WHARF_MCP_SERVERS: mcpServersVariable,
    /**
     * Variables that scripts, shells and MCP servers get although Wharf keeps them to itself
     * (its credentials): comma-separated names. Read where the processes start; checked here.
     */
    WHARF_PASS_ENV: z
      .string()
      .superRefine((value, context) => {
        try {
          passEnvNames({ WHARF_PASS_ENV: value });
        } catch (error) {
          context.addIssue({
            code: 'custom',
            message: (error as Error).message.replace(/^WHARF_PASS_ENV: /, ''),
          });
        }
      })
      .optional(),
    /** Models this worker runs agents on instead of their definitions' (`echo`, `reviewer=…`). */
    WHARF_MODEL: modelOverridesVariable,
    /** The model summarizing scripts' stdout under `truncation_strategy: summary`; default WHARF_MODEL's. */
    WHARF_SUMMARIZER: summarizerVariable,
    /**
     * The Worker Deployment this worker belongs to (`wharf`) and its build (one per release of
     * the workflow code): both or neither (empty counts as unset). Set, the worker runs with
     * Worker Versioning, its workflows pinned; unset, unversioned. See docs/cluster.md.
     */
    WHARF_DEPLOYMENT_NAME: optionalText,
    WHARF_BUILD_ID: optionalText,
  })
  .superRefine((env, context) => {
    try {
      workerVersionFromEnv({
        WHARF_DEPLOYMENT_NAME: env.WHARF_DEPLOYMENT_NAME,
        WHARF_BUILD_ID: env.WHARF_BUILD_ID,
      });
    } catch (error) {
      if (!WorkerVersionError.isInstance(error)) throw error;
      for (const variable of error.variables)
        context.addIssue({
          code: 'custom',
          path: [variable],
          message: error.message.replace(`${variable} `, ''),
        });
    }
  })
  .superRefine((env, context) => {
    if (env.WHARF_GC_INTERVAL !== undefined) return;
    for (const key of ['WHARF_GC_MAX_AGE', 'WHARF_GC_MAX_BYTES'] as const) {
      if (env[key] !== undefined)
        context.addIssue({ code: 'custom', path: [key], message: 'has no effect without WHARF_GC_INTERVAL' });
    }
  });

/** Validated worker configuration. */
export type WorkerConfig = z.output<typeof workerEnvSchema> & {
  /** The Temporal cluster: `TEMPORAL_ADDRESS`, `TEMPORAL_NAMESPACE`, `TEMPORAL_API_KEY`, TLS, profiles. */
  temporal: TemporalConfig;
  /** Tracing as the `OTEL_*` variables ask; undefined when off (the default). */
  tracing: TracingSettings | undefined;
  /** The Worker Deployment version (`WHARF_DEPLOYMENT_NAME` and `WHARF_BUILD_ID`); undefined: unversioned. */
  version: ReturnType<typeof workerVersionFromEnv>;
};

/**
 * Reads the worker's configuration from the environment; every bad variable is named.
 *
 * @example
 * ```ts
 * const config = loadWorkerConfig(process.env);
 * ```
 */
export function loadWorkerConfig(env: Record<string, string | undefined>): WorkerConfig {
  const parsed = workerEnvSchema.safeParse(env);
  const issues = parsed.success ? { lines: [], variables: [] } : envIssues(parsed.error);
  const lines: string[] = issues.lines;
  const variables = new Set<string>(issues.variables);
  const settingOf = <TValue>(read: () => TValue): TValue | undefined => {
    try {
      return read();
    } catch (error) {
      if (!InvalidConfigError.isInstance(error)) throw error;
      lines.push(`  ${error.message}`);
      variables.add(error.setting);
      return undefined;
    }
  };
  const temporal = settingOf(() => loadTemporalConfig({ env }));
  const tracing = settingOf(() => readTracingEnv(env));
  if (!parsed.success || temporal === undefined || lines.length > 0) {
    throw new WorkerConfigError('INVALID_ENV', `Invalid worker environment:\n${lines.join('\n')}`, {
      ...(parsed.success ? {} : { cause: parsed.error }),
      variables: [...variables],
    });
  }
  return { ...parsed.data, temporal, tracing, version: workerVersionFromEnv(env) };
}

/**
 * The intake limits the environment sets, for `composeWorker({ intake: { limits } })`; a
 * variable left unset is left out, so the intake's default applies.
 *
 * @example
 * ```ts
 * intakeLimits(loadWorkerConfig({ WHARF_INTAKE_MAX_CONCURRENT_REQUESTS: '64' })); // { maxConcurrentRequests: 64 }
 * ```
 */
export function intakeLimits(config: WorkerConfig): IntakeLimits {
  const entries = {
    headersTimeoutMs: config.WHARF_INTAKE_HEADERS_TIMEOUT_MS,
    requestTimeoutMs: config.WHARF_INTAKE_REQUEST_TIMEOUT_MS,
    idleTimeoutMs: config.WHARF_INTAKE_IDLE_TIMEOUT_MS,
    maxConcurrentRequests: config.WHARF_INTAKE_MAX_CONCURRENT_REQUESTS,
    maxBodyBytes: config.WHARF_INTAKE_MAX_BODY_BYTES,
  };
  return Object.fromEntries(
    Object.entries(entries).filter(([, value]) => value !== undefined),
  ) as IntakeLimits;
}
