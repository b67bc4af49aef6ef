import { readFileSync } from 'node:fs';
import { platform } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { Connection } from '@temporalio/client';
import {
  type ClientConfigProfile,
  type ClientConnectConfig,
  loadClientConfigProfile,
  toClientOptions,
} from '@temporalio/envconfig';
import { InvalidConfigError } from '@wharf/swarm';
import { parse as parseToml, TomlError } from 'smol-toml';
import { z } from 'zod';

/** Where Wharf looks for Temporal when nothing names a cluster (a local dev server). */
export const DEFAULT_TEMPORAL_ADDRESS = '127.0.0.1:7233';

/** Options of {@link loadTemporalConfig}; each beats its environment variable. */
export interface LoadTemporalConfigOptions {
  /** Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Beats `TEMPORAL_ADDRESS` and the profile's `address` (e.g. `wharf status --address`). */
  address?: string;
  /** Beats `TEMPORAL_NAMESPACE` and the profile's `namespace`. */
  namespace?: string;
  /** Beats `TEMPORAL_PROFILE`. */
  profile?: string;
  /** Beats `TEMPORAL_CONFIG_FILE`. */
  configFile?: string;
}

/** What `Connection.connect` and `NativeConnection.connect` take, as the configuration says. */
export type TemporalConnectionOptions = ClientConnectConfig['connectionOptions'] & { address: string };

/** A Temporal cluster as Temporal's standard configuration describes it. */
export interface TemporalConfig {
  address: string;
  namespace: string;
  /**
   * True when something named the cluster: an address, an API key or TLS (from the options,
   * `TEMPORAL_*` variables or a config-file profile). When false, Wharf may start a local dev
   * server.
   */
  configured: boolean;
  /** Spread into `Connection.connect(…)` or `NativeConnection.connect(…)`. */
  connection: TemporalConnectionOptions;
  /** Where the address came from: `TEMPORAL_ADDRESS`, `profile "cloud" in <file>`, `the default`. */
  source: string;
  /** One line for logs: address, namespace, TLS and API key (never the key itself), and the source. */
  summary: string;
}

const pathOrData = (name: string) => ({
  [`${name}_path`]: z.string().min(1).optional(),
  [`${name}_data`]: z.string().min(1).optional(),
});

const tomlTlsSchema = z
  .looseObject({
    disabled: z.boolean().optional(),
    server_name: z.string().min(1).optional(),
    disable_host_verification: z.boolean().optional(),
    ...pathOrData('client_cert'),
    ...pathOrData('client_key'),
    ...pathOrData('server_ca_cert'),
  })
  .superRefine((tls, context) => {
    for (const name of ['client_cert', 'client_key', 'server_ca_cert']) {
      if (tls[`${name}_path`] !== undefined && tls[`${name}_data`] !== undefined) {
        context.addIssue({
          code: 'custom',
          path: [`${name}_path`],
          message: `and ${name}_data are both set`,
        });
      }
    }
  });

/** The part of Temporal's `temporal.toml` Wharf relies on, checked before the SDK reads it. */
const tomlConfigSchema = z.looseObject({
  profile: z
    .record(
      z.string(),
      z.looseObject({
        address: z.string().min(1).optional(),
        namespace: z.string().min(1).optional(),
        api_key: z.string().min(1).optional(),
        tls: tomlTlsSchema.optional(),
        grpc_meta: z.record(z.string(), z.string()).optional(),
      }),
    )
    .optional(),
});

/** The certificate settings of a profile: their variables, and their keys in a profile's `tls`. */
const certificateSettings = [
  { field: 'clientCert', variable: 'TEMPORAL_TLS_CLIENT_CERT_PATH', key: 'client_cert_path' },
  { field: 'clientKey', variable: 'TEMPORAL_TLS_CLIENT_KEY_PATH', key: 'client_key_path' },
  { field: 'serverCACert', variable: 'TEMPORAL_TLS_SERVER_CA_CERT_PATH', key: 'server_ca_cert_path' },
] as const;

/**
 * Reads Temporal's standard environment configuration (`@temporalio/envconfig`), as the
 * `temporal` CLI and the SDKs do: the profile `TEMPORAL_PROFILE` (default `default`) of the
 * config file `TEMPORAL_CONFIG_FILE` (default `~/.config/temporalio/temporal.toml`), then the
 * variables over it — `TEMPORAL_ADDRESS`, `TEMPORAL_NAMESPACE`, `TEMPORAL_API_KEY`,
 * `TEMPORAL_TLS`, `TEMPORAL_TLS_CLIENT_CERT_PATH` / `_KEY_PATH`, `TEMPORAL_TLS_SERVER_CA_CERT_PATH`,
 * `TEMPORAL_TLS_SERVER_NAME` (and their `_DATA` forms), `TEMPORAL_GRPC_META_*`. An API key turns
 * TLS on unless `TEMPORAL_TLS=false`. Empty variables count as unset.
 *
 * Throws an {@link InvalidConfigError} naming the variable or file key when the config file
 * named cannot be read or is not valid TOML, a value has the wrong type, the profile asked for
 * does not exist, a certificate or key cannot be read, or a client certificate comes without
 * its key (or the other way round).
 *
 * @example
 * ```ts
 * const temporal = loadTemporalConfig(); // TEMPORAL_ADDRESS=…tmprl.cloud:7233 TEMPORAL_API_KEY=…
 * const connection = await Connection.connect(temporal.connection);
 * const client = new Client({ connection, namespace: temporal.namespace });
 * ```
 */
export function loadTemporalConfig(options: LoadTemporalConfigOptions = {}): TemporalConfig {
  const env = withoutEmptyValues(options.env ?? process.env);
  const file = configFile(options, env);
  const profiles = readProfiles(file);
  const profileName = options.profile ?? env.TEMPORAL_PROFILE;
  const profileSetting = options.profile === undefined ? 'TEMPORAL_PROFILE' : 'profile';
  if (profileName !== undefined && profiles?.[profileName] === undefined) {
    const known = Object.keys(profiles ?? {});
    throw new InvalidConfigError(
      profileSetting,
      `${profileSetting}: profile "${profileName}" is not in ${file.path ?? 'any config file'}` +
        (file.path === undefined
          ? ' (set TEMPORAL_CONFIG_FILE)'
          : profiles === undefined
            ? ' (no such file)'
            : known.length === 0
              ? ' (it has no profiles)'
              : ` (its profiles: ${known.join(', ')})`),
      file.path === undefined ? undefined : { file: file.path },
    );
  }
  const usedProfile = profileName ?? (profiles?.default === undefined ? undefined : 'default');
  let profile: ClientConfigProfile;
  try {
    profile = loadClientConfigProfile({
      ...(usedProfile === undefined || file.text === undefined
        ? { disableFile: true }
        : { configSource: { data: file.text }, profile: usedProfile }),
      overrideEnvVars: env as Record<string, string>,
    });
  } catch (error) {
    throw new InvalidConfigError(
      file.setting ?? 'TEMPORAL_CONFIG_FILE',
      `${file.path ?? 'Temporal configuration'}: ${(error as Error).message}`,
      { cause: error, ...(file.path === undefined ? {} : { file: file.path }) },
    );
  }
  const settingOf = (certificate: (typeof certificateSettings)[number]) =>
    env[certificate.variable] !== undefined
      ? { setting: certificate.variable }
      : { setting: `profile.${usedProfile}.tls.${certificate.key}`, file: file.path };
  for (const certificate of certificateSettings) {
    const source = profile.tls?.[certificate.field];
    if (source === undefined || !('path' in source)) continue;
    try {
      readFileSync(source.path);
    } catch (error) {
      const { setting, file: inFile } = settingOf(certificate);
      throw new InvalidConfigError(
        setting,
        `${setting}: cannot read ${source.path}: ${(error as Error).message}${inFile === undefined ? '' : ` (in ${inFile})`}`,
        { cause: error, ...(inFile === undefined ? {} : { file: inFile }) },
      );
    }
  }
  const [cert, key] = certificateSettings;
  const hasCert = profile.tls?.clientCert !== undefined;
  if (hasCert !== (profile.tls?.clientKey !== undefined)) {
    const [present, missing] = hasCert ? [cert, key] : [key, cert];
    const { setting, file: inFile } = settingOf(present);
    throw new InvalidConfigError(
      setting,
      `${setting}: a client ${hasCert ? 'certificate' : 'key'} needs its ${hasCert ? 'key' : 'certificate'} too (${missing.variable}, or ${missing.key} in the profile's tls)`,
      inFile === undefined ? undefined : { file: inFile },
    );
  }
  const connect = toClientOptions(profile);
  const address = options.address ?? connect.connectionOptions.address ?? DEFAULT_TEMPORAL_ADDRESS;
  const namespace = options.namespace ?? connect.namespace ?? 'default';
  const tls = connect.connectionOptions.tls;
  const apiKey = connect.connectionOptions.apiKey;
  const source =
    options.address !== undefined
      ? 'the address given'
      : env.TEMPORAL_ADDRESS !== undefined
        ? 'TEMPORAL_ADDRESS'
        : profile.address !== undefined
          ? `profile "${usedProfile}" in ${file.path}`
          : 'the default';
  const connection: TemporalConnectionOptions = {
    address,
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(tls === undefined ? {} : { tls }),
    ...(connect.connectionOptions.metadata === undefined
      ? {}
      : { metadata: connect.connectionOptions.metadata }),
  };
  const secured = tls !== undefined && tls !== false;
  return {
    address,
    namespace,
    configured: source !== 'the default' || apiKey !== undefined || secured,
    connection,
    source,
    summary: `${address} (namespace ${namespace}${secured ? ', TLS' : ''}${apiKey === undefined ? '' : ', API key'}; from ${source})`,
  };
}

/**
 * A client connection to the cluster a {@link TemporalConfig} describes.
 *
 * @example
 * ```ts
 * const connection = await connectTemporal(loadTemporalConfig(), { connectTimeoutMs: 3_000 });
 * ```
 */
export function connectTemporal(
  config: TemporalConfig,
  options: { connectTimeoutMs?: number } = {},
): Promise<Connection> {
  return Connection.connect({
    ...config.connection,
    ...(options.connectTimeoutMs === undefined ? {} : { connectTimeout: options.connectTimeoutMs }),
  });
}

interface ConfigFile {
  /** The file read, or looked for. */
  path: string | undefined;
  /** The variable or option that named it; undefined for the default location. */
  setting: string | undefined;
  text: string | undefined;
}

/** Reads the config file: one that was named must be readable; the default one may be absent. */
function configFile(options: LoadTemporalConfigOptions, env: Record<string, string | undefined>): ConfigFile {
  const named = options.configFile ?? env.TEMPORAL_CONFIG_FILE;
  const setting =
    options.configFile !== undefined
      ? 'configFile'
      : named !== undefined
        ? 'TEMPORAL_CONFIG_FILE'
        : undefined;
  const path = named ?? defaultConfigPath(env);
  if (path === undefined) return { path, setting, text: undefined };
  try {
    return { path, setting, text: readFileSync(path, 'utf8') };
  } catch (error) {
    if (setting === undefined && (error as NodeJS.ErrnoException).code === 'ENOENT') {
      return { path, setting, text: undefined };
    }
    throw new InvalidConfigError(
      setting ?? path,
      `${setting ?? 'Temporal config file'}: cannot read ${path}: ${(error as Error).message}`,
      { file: path, cause: error },
    );
  }
}

/** The profiles of the config file, checked; undefined when there is no file. */
function readProfiles(file: ConfigFile): Record<string, unknown> | undefined {
  if (file.text === undefined || file.path === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = parseToml(file.text);
  } catch (error) {
    const where = error instanceof TomlError ? `:${error.line}:${error.column}` : '';
    throw new InvalidConfigError(
      file.setting ?? file.path,
      `${file.path}${where} is not valid TOML: ${(error as Error).message.split('\n')[0]}`,
      { file: file.path, cause: error },
    );
  }
  const checked = tomlConfigSchema.safeParse(parsed);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    const key = issue?.path.join('.') ?? '';
    throw new InvalidConfigError(key, `${file.path}: ${key}: ${issue?.message ?? 'invalid'}`, {
      file: file.path,
      cause: checked.error,
    });
  }
  return checked.data.profile ?? {};
}

/** Where the SDKs look by default: `$XDG_CONFIG_HOME` or `~/.config`, `temporalio/temporal.toml`. */
function defaultConfigPath(env: Record<string, string | undefined>): string | undefined {
  const system = platform();
  const dir =
    system === 'win32'
      ? env.APPDATA
      : system === 'darwin'
        ? env.HOME === undefined
          ? undefined
          : join(env.HOME, 'Library', 'Application Support')
        : env.XDG_CONFIG_HOME !== undefined
          ? isAbsolute(env.XDG_CONFIG_HOME)
            ? env.XDG_CONFIG_HOME
            : undefined
          : env.HOME === undefined
            ? undefined
            : join(env.HOME, '.config');
  return dir === undefined ? undefined : join(dir, 'temporalio', 'temporal.toml');
}

/** The environment with empty `TEMPORAL_*` values left out (Compose passes unset ones as empty). */
function withoutEmptyValues(
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string | undefined> {
  return Object.fromEntries(
    Object.entries(env).filter(
      ([name, value]) =>
        value !== undefined &&
        (value !== '' || !name.startsWith('TEMPORAL_') || name.startsWith('TEMPORAL_GRPC_META_')),
    ),
  );
}
