import { parseBlobsUrl, parseStoreUrl } from '@wharf/output-store/config';
import { z } from 'zod';
import { dataPlaneUrl, optionalHttpUrl, optionalText } from './env-values.js';
import { readEnv } from './read-env.js';

/**
 * The variables of the codec server process (`wharf-codec-server`, the worker image's second
 * program), validated. The keys (`WHARF_CODEC_KEYS` / `WHARF_CODEC_KEYS_FILE`) are read by
 * `loadKeyRing` when it starts; the data plane is the workers' (`WHARF_STORE`, `WHARF_BLOBS`,
 * `AWS_*`), so it opens the External Storage payloads they offloaded.
 */
export const codecServerEnvSchema = z
  .object({
    /**
     * Where it listens. Anything but loopback needs `WHARF_CODEC_TOKEN` or
     * `WHARF_CODEC_OIDC_ISSUER`: the server refuses it otherwise.
     */
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
    /** A bearer token a request may carry (at least 16 characters); unset: none. */
    WHARF_CODEC_TOKEN: optionalText,
    /**
     * An OpenID Connect issuer (its `iss`, exactly) whose access tokens a request may carry
     * instead: the ones the Web UI forwards with `TEMPORAL_CODEC_PASS_ACCESS_TOKEN=true`. The
     * variables are `wharf codec-server`'s `--oidc-issuer`, `--oidc-audience`, `--oidc-jwks-uri`.
     */
    WHARF_CODEC_OIDC_ISSUER: optionalHttpUrl,
    /** The audience (`aud`) those tokens must name; unset: any. */
    WHARF_CODEC_OIDC_AUDIENCE: optionalText,
    /** The issuer's JWKS; unset: the `jwks_uri` of its discovery document. */
    WHARF_CODEC_OIDC_JWKS_URI: optionalHttpUrl,
    /** The owner whose stored payloads it opens: the External Storage driver's (default `temporal`). */
    WHARF_CODEC_OWNER: optionalText,
    WHARF_DATA_DIR: z.string().min(1).default('.wharf'),
    WHARF_STORE: dataPlaneUrl('WHARF_STORE', parseStoreUrl),
    WHARF_BLOBS: dataPlaneUrl('WHARF_BLOBS', parseBlobsUrl),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace']).default('info'),
  })
  .superRefine((env, context) => {
    if (env.WHARF_CODEC_OIDC_ISSUER !== undefined) return;
    for (const key of ['WHARF_CODEC_OIDC_AUDIENCE', 'WHARF_CODEC_OIDC_JWKS_URI'] as const)
      if (env[key] !== undefined)
        context.addIssue({ code: 'custom', path: [key], message: 'needs WHARF_CODEC_OIDC_ISSUER' });
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
  return readEnv(codecServerEnvSchema, env, 'codec server');
}

/** How the codec server authenticates requests, as `startDataPlaneCodecServer`'s `auth` takes it. */
export interface CodecServiceAuth {
  bearerToken?: string;
  oidc?: { issuer: string; audience?: string; jwksUri?: string };
}

/**
 * The authentication the configuration asks for: the bearer token, the OIDC issuer, both (a
 * request passes with either), or undefined for none (then loopback only).
 *
 * @example
 * ```ts
 * codecServiceAuth(loadCodecServerConfig({ WHARF_CODEC_OIDC_ISSUER: 'https://login.example.com' }));
 * // { oidc: { issuer: 'https://login.example.com' } }
 * ```
 */
export function codecServiceAuth(config: CodecServerConfig): CodecServiceAuth | undefined {
  const issuer = config.WHARF_CODEC_OIDC_ISSUER;
  const oidc =
    issuer === undefined
      ? undefined
      : {
          issuer,
          ...(config.WHARF_CODEC_OIDC_AUDIENCE === undefined
            ? {}
            : { audience: config.WHARF_CODEC_OIDC_AUDIENCE }),
          ...(config.WHARF_CODEC_OIDC_JWKS_URI === undefined
            ? {}
            : { jwksUri: config.WHARF_CODEC_OIDC_JWKS_URI }),
        };
  if (config.WHARF_CODEC_TOKEN === undefined && oidc === undefined) return undefined;
  return {
    ...(config.WHARF_CODEC_TOKEN === undefined ? {} : { bearerToken: config.WHARF_CODEC_TOKEN }),
    ...(oidc === undefined ? {} : { oidc }),
  };
}
