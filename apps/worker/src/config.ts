import { InvalidStoreUrlError, parseBlobsUrl, parseStoreUrl } from '@wharf/output-store/config';
import { z } from 'zod';
import { WorkerConfigError } from './worker-config-error.js';

const port = z.coerce.number().int().min(0).max(65_535);

/** A data-plane URL: empty counts as unset; a malformed one is refused naming the bad part. */
function dataPlaneUrl(variable: string, parse: (value: string, variable: string) => unknown) {
  return z.preprocess(
    (value) => (value === '' ? undefined : value),
    z
      .string()
      .superRefine((value, context) => {
        try {
          parse(value, variable);
        } catch (error) {
          if (!InvalidStoreUrlError.isInstance(error)) throw error;
          context.addIssue({ code: 'custom', message: `${error.part} ${error.reason}` });
        }
      })
      .optional(),
  );
}

/** The worker's environment, validated. */
export const workerEnvSchema = z.object({
  TEMPORAL_ADDRESS: z.string().min(1).default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
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
  /** Health endpoint (`GET /healthz`); 0 = any free port. */
  WHARF_HEALTH_PORT: port.default(0),
  WHARF_MAX_CONCURRENT: z.coerce.number().int().min(1).max(2_000).default(8),
  /** How long SIGTERM waits for running subagents before handing them back to Temporal. */
  WHARF_SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(30_000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace']).default('info'),
});

/** Validated worker configuration. */
export type WorkerConfig = z.output<typeof workerEnvSchema>;

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
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
  throw new WorkerConfigError('INVALID_ENV', `Invalid worker environment:\n${lines.join('\n')}`, {
    cause: parsed.error,
  });
}
