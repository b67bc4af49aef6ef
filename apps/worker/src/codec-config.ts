import { InvalidStoreUrlError, parseBlobsUrl, parseStoreUrl } from '@wharf/output-store/config';
import { z } from 'zod';
import { WorkerConfigError } from './worker-config-error.js';

/** Empty counts as unset, as Compose's `${VAR:-}` passes an unset variable. */
const optional = z.preprocess((value) => (value === '' ? undefined : value), z.string().optional());

/** A data-plane URL as the worker reads it: empty counts as unset; a malformed one is refused naming the bad part. */
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

/**
 * The variables of the codec server process (`wharf-codec-server`, the worker image's second
 * program), validated. The keys (`WHARF_CODEC_KEYS` / `WHARF_CODEC_KEYS_FILE`) are read by
 * `loadKeyRing` when it starts; the data plane is the workers' (`WHARF_STORE`, `WHARF_BLOBS`,
 * `AWS_*`), so it opens the External Storage payloads they offloaded.
 */
export const codecServerEnvSchema = z.object({
  /** Where it listens. Anything but loopback needs `WHARF_CODEC_TOKEN`: the server refuses it otherwise. */
  WHARF_CODEC_HOST: z.string().min(1).default('127.0.0.1'),
  WHARF_CODEC_PORT: z.coerce.number().int().min(0).max(65_535).default(8234),
  /**
   * The Web UI origins a browser may call it from (CORS), `scheme://host[:port]`, separated by
   * commas or whitespace. Unset: none (the CLI, which sends no `Origin`, still can).
   */
  WHARF_CODEC_ORIGINS: z
    .preprocess(
      (value) =>
        typeof value === 'string' ? value.split(/[\s,]+/).filter((origin) => origin !== '') : value,
      z.array(z.string().regex(/^https?:\/\/[^/\s]+$/, 'give scheme://host[:port] origins, no "*"')),
    )
    .default([]),
  /** A bearer token every request must carry (at least 16 characters); unset: none, loopback only. */
  WHARF_CODEC_TOKEN: optional,
  /** The owner whose stored payloads it opens: the External Storage driver's (default `temporal`). */
  WHARF_CODEC_OWNER: optional,
  WHARF_DATA_DIR: z.string().min(1).default('.wharf'),
  WHARF_STORE: dataPlaneUrl('WHARF_STORE', parseStoreUrl),
  WHARF_BLOBS: dataPlaneUrl('WHARF_BLOBS', parseBlobsUrl),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace']).default('info'),
});

/** Validated configuration of the codec server process. */
export type CodecServerConfig = z.output<typeof codecServerEnvSchema>;

/**
 * Reads the codec server's configuration from the environment; every bad variable is named
 * (`INVALID_ENV`). The keys are not read here: `startCodecService` loads them.
 *
 * @example
 * ```ts
 * const config = loadCodecServerConfig({ WHARF_CODEC_ORIGINS: 'http://localhost:8233' });
 * config.WHARF_CODEC_PORT; // 8234
 * ```
 */
export function loadCodecServerConfig(env: Record<string, string | undefined>): CodecServerConfig {
  const parsed = codecServerEnvSchema.safeParse(env);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues;
  throw new WorkerConfigError(
    'INVALID_ENV',
    `Invalid codec server environment:\n${issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`).join('\n')}`,
    { cause: parsed.error, variables: [...new Set(issues.map((issue) => String(issue.path[0])))] },
  );
}
