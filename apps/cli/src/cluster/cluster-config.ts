import { join, resolve } from 'node:path';

/**
 * The ports of a native cluster. The defaults are the compose file's published ports: Temporal's
 * frontend on 7233, its Web UI on 8233, PostgreSQL on 5432, the S3 service on 9000, the codec
 * server (with payload encryption on) on 8234.
 *
 * @example
 * ```ts
 * const ports: ClusterPorts = { ...defaultClusterPorts, temporal: 17233 };
 * ```
 */
export interface ClusterPorts {
  /** Temporal's frontend (gRPC). Its other services listen at fixed offsets of it ({@link temporalPorts}). */
  readonly temporal: number;
  readonly ui: number;
  readonly postgres: number;
  readonly s3: number;
  /** The codec server the Web UI decodes through (only with `WHARF_CODEC_KEYS` / `WHARF_CODEC_KEYS_FILE`). */
  readonly codec: number;
  /** The first worker's health port; worker n listens on `workerHealth + n - 1`. */
  readonly workerHealth: number;
}

/** The compose file's ports (and 8080 + n for the workers' health, one container each there). */
export const defaultClusterPorts: ClusterPorts = {
  temporal: 7233,
  ui: 8233,
  postgres: 5432,
  s3: 9000,
  codec: 8234,
  workerHealth: 8081,
};

/**
 * What a native cluster is made of: where it keeps its state, its ports, how many workers, and
 * the checkout it runs from (the `deploy/` scripts and `apps/worker`).
 *
 * @example
 * ```ts
 * const config: ClusterConfig = { dir: '.wharf-cluster', root: '.', ports: defaultClusterPorts, workers: 2 };
 * ```
 */
export interface ClusterConfig {
  /** The cluster directory: each process's pid file, log and data (`<dir>/<name>/`). */
  readonly dir: string;
  /** The Wharf checkout: `deploy/` and `apps/worker/dist/main.js` are read from it. */
  readonly root: string;
  readonly ports: ClusterPorts;
  /** How many Wharf workers (`wharf-worker-1` … `wharf-worker-<n>`), at least one. */
  readonly workers: number;
  /**
   * The workers' Worker Deployment version (`WHARF_DEPLOYMENT_NAME`, `WHARF_BUILD_ID`), made
   * current once they poll. Default: the deployment `wharf` and the build id of the checkout's
   * workflow code (`workflowBuildId`), derived by `up`.
   */
  readonly version?: ClusterVersion;
  /**
   * Whether the cluster runs the codec server `wharf-codec` (and points the Web UI at it).
   * Default: when the keys are configured ({@link codecKeysConfigured}), decided at `up` and
   * recorded, so `down` stops it whatever the environment then.
   */
  readonly codec?: boolean;
}

/**
 * A Worker Deployment version of the cluster's workers.
 *
 * @example
 * ```ts
 * const version: ClusterVersion = { deploymentName: 'wharf', buildId: '0.1.0-633aa3997e0f' };
 * ```
 */
export interface ClusterVersion {
  readonly deploymentName: string;
  readonly buildId: string;
}

/**
 * Temporal's service ports, at the offsets of the server's defaults from the frontend's 7233
 * (history 7234, matching 7235, worker 7239, HTTP 7243, membership 6933–6939): with the
 * default frontend port they are exactly the server's (and the compose container's) own.
 *
 * @example
 * ```ts
 * temporalPorts(7233).HISTORY_GRPC_PORT; // 7234
 * ```
 */
export function temporalPorts(frontend: number): Record<string, number> {
  return {
    FRONTEND_GRPC_PORT: frontend,
    HISTORY_GRPC_PORT: frontend + 1,
    MATCHING_GRPC_PORT: frontend + 2,
    WORKER_GRPC_PORT: frontend + 6,
    FRONTEND_HTTP_PORT: frontend + 10,
    FRONTEND_MEMBERSHIP_PORT: frontend - 300,
    HISTORY_MEMBERSHIP_PORT: frontend - 299,
    MATCHING_MEMBERSHIP_PORT: frontend - 298,
    WORKER_MEMBERSHIP_PORT: frontend - 294,
  };
}

/**
 * The credentials and names the compose file uses, with the same variables overriding them:
 * PostgreSQL's superuser `temporal`/`temporal`, the store role's password `WHARF_DB_PASSWORD`,
 * the S3 root credentials `WHARF_S3_ACCESS_KEY_ID`/`WHARF_S3_SECRET_ACCESS_KEY`, the bucket
 * `wharf`, the namespace `default`, the task queue `wharf`, the Worker Deployment `wharf`.
 *
 * @example
 * ```ts
 * const secrets = clusterSecrets(process.env);
 * ```
 */
export function clusterSecrets(env: Readonly<Record<string, string | undefined>>) {
  return {
    postgresUser: 'temporal',
    postgresPassword: 'temporal',
    wharfDbPassword: env.WHARF_DB_PASSWORD || 'wharf-local-secret',
    s3AccessKeyId: env.WHARF_S3_ACCESS_KEY_ID || 'wharf',
    s3SecretAccessKey: env.WHARF_S3_SECRET_ACCESS_KEY || 'wharf-local-secret',
    bucket: 'wharf',
    namespace: 'default',
    taskQueue: 'wharf',
    deploymentName: 'wharf',
  } as const;
}

/** The environment a process of the cluster gets, beside the variables every process inherits. */
export type ProcessEnv = Record<string, string>;

/**
 * The environment of each service, by its compose service name, as the compose file sets it with
 * only the host-specific values changed (a host name becomes 127.0.0.1, a container port the
 * native one, a container path the checkout's). test/src/compose.test.ts fails when the two
 * drift: a variable named in one and not the other, or a value that differs other than so.
 *
 * @example
 * ```ts
 * const env = serviceEnvironments(config, process.env)['temporal'];
 * ```
 */
export function serviceEnvironments(
  config: ClusterConfig,
  env: Readonly<Record<string, string | undefined>>,
): Record<
  'temporal-schema' | 'wharf-database' | 'temporal' | 'temporal-namespace' | 'temporal-ui' | 'wharf-version',
  ProcessEnv
> {
  const secrets = clusterSecrets(env);
  const { ports } = config;
  const temporalAddress = `127.0.0.1:${ports.temporal}`;
  return {
    'temporal-schema': {
      SQL_PLUGIN: 'postgres12',
      SQL_HOST: '127.0.0.1',
      SQL_PORT: String(ports.postgres),
      SQL_USER: secrets.postgresUser,
      SQL_PASSWORD: secrets.postgresPassword,
    },
    'wharf-database': {
      PGHOST: '127.0.0.1',
      PGPORT: String(ports.postgres),
      PGUSER: secrets.postgresUser,
      PGPASSWORD: secrets.postgresPassword,
      WHARF_DB_PASSWORD: secrets.wharfDbPassword,
    },
    temporal: {
      DB: 'postgres12',
      DB_PORT: String(ports.postgres),
      // The visibility store's port: the server's config reads POSTGRES_PORT for it, not DB_PORT.
      POSTGRES_PORT: String(ports.postgres),
      POSTGRES_USER: secrets.postgresUser,
      POSTGRES_PWD: secrets.postgresPassword,
      POSTGRES_SEEDS: '127.0.0.1',
      DYNAMIC_CONFIG_FILE_PATH: join(config.root, 'deploy', 'dynamicconfig', 'wharf.yaml'),
      BIND_ON_IP: '127.0.0.1',
      TEMPORAL_BROADCAST_ADDRESS: '127.0.0.1',
      ...Object.fromEntries(Object.entries(temporalPorts(ports.temporal)).map(([k, v]) => [k, String(v)])),
    },
    'temporal-namespace': {
      TEMPORAL_ADDRESS: temporalAddress,
      TEMPORAL_NAMESPACE: secrets.namespace,
    },
    'temporal-ui': {
      TEMPORAL_ADDRESS: temporalAddress,
      TEMPORAL_CORS_ORIGINS: `http://localhost:${ports.ui}`,
      TEMPORAL_UI_PORT: String(ports.ui),
      // Empty: no codec, the UI shows payloads as they are (the ui-server's default).
      TEMPORAL_CODEC_ENDPOINT: runsCodec(config, env) ? codecEndpoint(config) : '',
      // With an OIDC issuer the codec server wants the signed-in user's access token (empty: false).
      TEMPORAL_CODEC_PASS_ACCESS_TOKEN: env.WHARF_CODEC_OIDC_ISSUER ? 'true' : '',
    },
    'wharf-version': {
      TEMPORAL_ADDRESS: temporalAddress,
      TEMPORAL_NAMESPACE: secrets.namespace,
      ...versionEnvironment(config),
    },
  };
}

/**
 * The variables naming the workers' Worker Deployment version, as the compose file passes them
 * to its workers and its `wharf-version` job; none for a config without a version (unversioned).
 *
 * @example
 * ```ts
 * versionEnvironment({ ...config, version: { deploymentName: 'wharf', buildId: 'b1' } });
 * // { WHARF_DEPLOYMENT_NAME: 'wharf', WHARF_BUILD_ID: 'b1' }
 * ```
 */
export function versionEnvironment(config: ClusterConfig): ProcessEnv {
  return config.version === undefined
    ? {}
    : { WHARF_DEPLOYMENT_NAME: config.version.deploymentName, WHARF_BUILD_ID: config.version.buildId };
}

/** The optional worker settings compose passes through unset (`${NAME:-}`): passed on when set. */
export const passedWorkerVariables = [
  'WHARF_GC_INTERVAL',
  'WHARF_GC_MAX_AGE',
  'WHARF_GC_MAX_BYTES',
  'WHARF_MCP_SERVERS',
  'WHARF_CODEC_KEYS',
  'WHARF_CODEC_KEYS_FILE',
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
  'OPENAI_COMPATIBLE_API_KEY',
] as const;

/**
 * The data plane the workers share, as any host reaches it: `WHARF_STORE` (the `wharf` database
 * on the cluster's PostgreSQL), `WHARF_BLOBS` (the `wharf` bucket of its S3 service) and the S3
 * credentials. `wharf run` from another directory needs exactly these (`wharf cluster env`).
 *
 * @example
 * ```ts
 * const plane = dataPlaneEnvironment(config, process.env);
 * ```
 */
export function dataPlaneEnvironment(
  config: ClusterConfig,
  env: Readonly<Record<string, string | undefined>>,
): ProcessEnv {
  const secrets = clusterSecrets(env);
  const { ports } = config;
  return {
    WHARF_STORE: `postgres://wharf:${encodeURIComponent(secrets.wharfDbPassword)}@127.0.0.1:${ports.postgres}/wharf`,
    WHARF_BLOBS: env.WHARF_BLOBS || `s3://${secrets.bucket}/outputs?endpoint=http://127.0.0.1:${ports.s3}`,
    AWS_ACCESS_KEY_ID: secrets.s3AccessKeyId,
    AWS_SECRET_ACCESS_KEY: secrets.s3SecretAccessKey,
    AWS_REGION: env.AWS_REGION || 'us-east-1',
  };
}

/**
 * The environment of worker `n` (1-based): the compose file's `wharf-worker` environment, with its
 * own data directory, health port, HOME and TMPDIR (a host of its own), sharing only the data
 * plane and the Temporal server with the others.
 *
 * @example
 * ```ts
 * const env = workerEnvironment(config, process.env, 1);
 * ```
 */
export function workerEnvironment(
  config: ClusterConfig,
  env: Readonly<Record<string, string | undefined>>,
  n: number,
): ProcessEnv {
  const secrets = clusterSecrets(env);
  const home = workerHome(config, n);
  const passed = Object.fromEntries(
    passedWorkerVariables.flatMap((name) => (env[name] ? [[name, env[name] as string]] : [])),
  );
  return {
    TEMPORAL_ADDRESS: `127.0.0.1:${config.ports.temporal}`,
    TEMPORAL_NAMESPACE: secrets.namespace,
    WHARF_TASK_QUEUE: secrets.taskQueue,
    WHARF_DATA_DIR: join(home, 'data'),
    ...dataPlaneEnvironment(config, env),
    WHARF_INTAKE_HOST: '127.0.0.1',
    WHARF_HEALTH_PORT: String(config.ports.workerHealth + n - 1),
    WHARF_MAX_CONCURRENT: '8',
    WHARF_SHUTDOWN_GRACE_MS: '30000',
    WHARF_SANDBOX: env.WHARF_SANDBOX || 'required',
    ...passed,
    ...codecKeyEnvironment(env),
    ...versionEnvironment(config),
    HOME: home,
    TMPDIR: join(home, 'tmp'),
  };
}

/** The folder worker `n` treats as its host: its HOME, with `data/` and `tmp/` inside. */
export function workerHome(config: ClusterConfig, n: number): string {
  return join(config.dir, `wharf-worker-${n}`, 'home');
}

/**
 * Whether payload encryption keys are configured (`WHARF_CODEC_KEYS` or `WHARF_CODEC_KEYS_FILE`
 * set and not empty): then the cluster runs the codec server `wharf-codec` for its Web UI.
 *
 * @example
 * ```ts
 * codecKeysConfigured({ WHARF_CODEC_KEYS: 'k1:…' }); // true
 * ```
 */
export function codecKeysConfigured(env: Readonly<Record<string, string | undefined>>): boolean {
  return Boolean(env.WHARF_CODEC_KEYS?.trim() || env.WHARF_CODEC_KEYS_FILE?.trim());
}

/** Whether `config` runs the codec server: as recorded, else as the keys in `env` say. */
function runsCodec(config: ClusterConfig, env: Readonly<Record<string, string | undefined>>): boolean {
  return config.codec ?? codecKeysConfigured(env);
}

/**
 * The codec server's URL as the browser showing the Web UI calls it (the UI's
 * `TEMPORAL_CODEC_ENDPOINT`), and as `temporal workflow show --codec-endpoint` does: loopback,
 * where it listens without authentication.
 *
 * @example
 * ```ts
 * codecEndpoint({ ...config, ports: defaultClusterPorts }); // 'http://127.0.0.1:8234'
 * ```
 */
export function codecEndpoint(config: Pick<ClusterConfig, 'ports'>): string {
  return `http://127.0.0.1:${config.ports.codec}`;
}

/**
 * The key variables as set, a key file's path made absolute (the processes run in folders of
 * their own): the workers and the codec server get exactly the caller's ring.
 */
function codecKeyEnvironment(env: Readonly<Record<string, string | undefined>>): ProcessEnv {
  const file = env.WHARF_CODEC_KEYS_FILE?.trim();
  return file ? { WHARF_CODEC_KEYS_FILE: resolve(file) } : {};
}

/** The key variables the workers and the codec server are given when set (compose: `${NAME:-}`). */
export const codecKeyVariables = ['WHARF_CODEC_KEYS', 'WHARF_CODEC_KEYS_FILE'] as const;

/**
 * The codec server's OIDC settings (`wharf codec-server`'s `--oidc-issuer`, `--oidc-audience`,
 * `--oidc-jwks-uri`), given to it when set (compose: `${NAME:-}`). With an issuer, a request needs
 * one of its access tokens, and the Web UI forwards its signed-in user's
 * (`TEMPORAL_CODEC_PASS_ACCESS_TOKEN`).
 */
export const codecOidcVariables = [
  'WHARF_CODEC_OIDC_ISSUER',
  'WHARF_CODEC_OIDC_AUDIENCE',
  'WHARF_CODEC_OIDC_JWKS_URI',
] as const;

/**
 * The environment of the codec server `wharf-codec` (`apps/worker`'s `wharf-codec-server`), as
 * the compose file's `wharf-codec` service sets it: the workers' keys and data plane, loopback
 * on the codec port, CORS for the Web UI's origins (`localhost` and `127.0.0.1`), the OIDC
 * issuer whose access tokens it requires when one is set, a data directory of its own. In compose it shares the host's network, so only `WHARF_DATA_DIR`
 * differs.
 *
 * @example
 * ```ts
 * const env = codecEnvironment(config, process.env);
 * env.WHARF_CODEC_ORIGINS; // 'http://localhost:8233,http://127.0.0.1:8233'
 * ```
 */
export function codecEnvironment(
  config: ClusterConfig,
  env: Readonly<Record<string, string | undefined>>,
): ProcessEnv {
  const { ports } = config;
  const passed = Object.fromEntries(
    [...codecKeyVariables, ...codecOidcVariables].flatMap((name) =>
      env[name] ? [[name, env[name] as string]] : [],
    ),
  );
  return {
    ...passed,
    ...codecKeyEnvironment(env),
    WHARF_CODEC_HOST: '127.0.0.1',
    WHARF_CODEC_PORT: String(ports.codec),
    WHARF_CODEC_ORIGINS: `http://localhost:${ports.ui},http://127.0.0.1:${ports.ui}`,
    WHARF_DATA_DIR: join(config.dir, 'wharf-codec', 'data'),
    ...dataPlaneEnvironment(config, env),
  };
}
