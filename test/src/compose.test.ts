import { readFile } from 'node:fs/promises';
import {
  type ClusterConfig,
  codecEnvironment,
  codecKeyVariables,
  codecOidcVariables,
  defaultClusterPorts,
  passedWorkerVariables,
  serviceEnvironments,
  TEMPORAL_SERVER_VERSION,
  TEMPORAL_UI_VERSION,
  workerEnvironment,
} from '@wharf/cli/cluster';
import { wharfSearchAttributeKinds } from '@wharf/orchestrator';
import { parseBlobsUrl, parseStoreUrl } from '@wharf/output-store/config';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

// No Docker engine runs in CI, so the compose file is checked structurally here.
interface Service {
  image?: string;
  build?: unknown;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: unknown };
  entrypoint?: string[];
  volumes?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  security_opt?: string[];
  profiles?: string[];
  network_mode?: string;
  command?: string[];
}

const compose = parse(await readFile(new URL('../../docker-compose.yml', import.meta.url), 'utf8')) as {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
};

describe('docker-compose.yml', () => {
  it('has the self-hosted layout: PostgreSQL 16, schema jobs, server, namespace job, UI, S3 and its bucket job, Wharf workers', () => {
    expect(Object.keys(compose.services).sort()).toEqual(
      [
        'postgresql',
        'wharf-database',
        's3',
        's3-bucket',
        'temporal',
        'temporal-namespace',
        'temporal-schema',
        'temporal-ui',
        'wharf-worker',
        'wharf-version',
        'wharf-codec',
      ].sort(),
    );
    expect(compose.services.postgresql?.image).toMatch(/^postgres:16\.\d+$/);
    expect(JSON.stringify(compose)).not.toContain('auto-setup');
  });

  it('pins every image version', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      if (service.build !== undefined) continue;
      // A semantic version, or MinIO's immutable RELEASE.<timestamp> tags.
      expect(service.image, name).toMatch(
        /:(\$\{[A-Z_]+:-)?(\d+\.\d+(\.\d+)?|RELEASE\.\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ)\}?$/,
      );
    }
  });

  it('orders start-up with health and completion conditions', () => {
    const { services } = compose;
    expect(services['temporal-schema']?.depends_on?.postgresql?.condition).toBe('service_healthy');
    expect(services.temporal?.depends_on?.['temporal-schema']?.condition).toBe(
      'service_completed_successfully',
    );
    expect(services['wharf-worker']?.depends_on?.['temporal-namespace']?.condition).toBe(
      'service_completed_successfully',
    );
    expect(services['s3-bucket']?.depends_on?.s3?.condition).toBe('service_healthy');
    expect(services['wharf-database']?.depends_on?.postgresql?.condition).toBe('service_healthy');
    for (const job of ['wharf-database', 's3-bucket'])
      expect(services['wharf-worker']?.depends_on?.[job]?.condition, job).toBe(
        'service_completed_successfully',
      );
    for (const name of ['postgresql', 'temporal-ui', 'wharf-worker', 's3', 'wharf-codec']) {
      expect(services[name]?.healthcheck, name).toBeDefined();
    }
  });

  it('mounts scripts that exist; the workers share no volume, only the data plane', async () => {
    for (const name of ['temporal-schema', 'temporal-namespace', 'wharf-database', 'wharf-version']) {
      const script = services(name).entrypoint?.[1] as string;
      const text = await readFile(new URL(`../../${script.replace(/^\//, '')}`, import.meta.url), 'utf8');
      expect(text).toMatch(/^#!\/bin\/sh/);
    }
    const namespaceScript = await readFile(
      new URL('../../deploy/temporal-namespace.sh', import.meta.url),
      'utf8',
    );
    // Every search attribute the workflows set, with the type they set it as.
    for (const [attribute, kind] of Object.entries(wharfSearchAttributeKinds))
      expect(namespaceScript).toContain(`${attribute}:${kind}`);
    expect(services('wharf-worker').volumes).toBeUndefined();
    expect(compose.volumes).not.toHaveProperty('wharf-data');
  });

  it('passes the worker its optional settings, unset by default', () => {
    const environment = services('wharf-worker').environment ?? {};
    for (const name of [
      'WHARF_GC_INTERVAL',
      'WHARF_GC_MAX_AGE',
      'WHARF_GC_MAX_BYTES',
      'WHARF_MCP_SERVERS',
      'OPENAI_API_KEY',
      'ANTHROPIC_API_KEY',
      'OPENAI_COMPATIBLE_API_KEY',
    ]) {
      expect(environment[name], name).toBe(`\${${name}:-}`);
    }
  });

  it('points the workers at PostgreSQL and the S3 service with URLs the worker accepts', () => {
    const environment = services('wharf-worker').environment ?? {};
    const store = parseStoreUrl(defaulted(environment.WHARF_STORE));
    expect(store.kind).toBe('postgres');
    const url = new URL(store.kind === 'postgres' ? store.url : '');
    expect(url.hostname).toBe('postgresql');
    expect(url.pathname).toBe('/wharf');
    expect(url.username).toBe('wharf');
    expect(parseBlobsUrl(defaulted(environment.WHARF_BLOBS))).toEqual({
      kind: 's3',
      bucket: 'wharf',
      prefix: 'outputs',
      endpoint: 'http://s3:9000',
    });
    // The workers sign S3 requests with the S3 service's own root credentials.
    const s3 = services('s3').environment ?? {};
    expect(environment.AWS_ACCESS_KEY_ID).toBe(s3.MINIO_ROOT_USER);
    expect(environment.AWS_SECRET_ACCESS_KEY).toBe(s3.MINIO_ROOT_PASSWORD);
    expect(environment.AWS_REGION).toBeDefined();
    // The store's password is the one the database job gives the wharf role.
    expect(decodeURIComponent(url.password)).toBe(
      defaulted(services('wharf-database').environment?.WHARF_DB_PASSWORD),
    );
  });

  it('creates the store role and database idempotently, with the password passed as a variable', async () => {
    const script = await readFile(new URL('../../deploy/wharf-database.sh', import.meta.url), 'utf8');
    expect(script).toContain("WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'wharf')");
    expect(script).toContain("WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = 'wharf')");
    expect(script).toContain('-v password="$WHARF_DB_PASSWORD"');
    expect(services('postgresql').ports).toEqual(['127.0.0.1:5432:5432']);
  });

  it('keeps the S3 data on a volume and creates the bucket idempotently with its credentials', () => {
    expect(services('s3').volumes).toContain('s3-data:/data');
    expect(compose.volumes).toHaveProperty('s3-data');
    const script = (services('s3-bucket').entrypoint ?? []).join(' ');
    expect(script).toContain('http://s3:9000');
    expect(script).toContain('mc mb --ignore-existing wharf/wharf');
    // `$$` survives Compose interpolation, so the shell reads the container's variables.
    expect(script).toContain('"$$MINIO_ROOT_USER" "$$MINIO_ROOT_PASSWORD"');
  });

  it('runs the workers as a version of the Worker Deployment `wharf`, made current once they are healthy', async () => {
    const worker = services('wharf-worker').environment ?? {};
    const job = services('wharf-version');
    expect(defaulted(worker.WHARF_DEPLOYMENT_NAME)).toBe('wharf');
    expect(worker.WHARF_BUILD_ID).toMatch(/^\$\{WHARF_BUILD_ID:-[^}]+\}$/);
    // The job makes current exactly the version the workers poll with.
    expect(job.environment?.WHARF_DEPLOYMENT_NAME).toBe(worker.WHARF_DEPLOYMENT_NAME);
    expect(job.environment?.WHARF_BUILD_ID).toBe(worker.WHARF_BUILD_ID);
    expect(job.depends_on?.['wharf-worker']?.condition).toBe('service_healthy');
    expect(job.image).toBe(services('temporal-namespace').image);
    const script = await readFile(new URL('../../deploy/wharf-version.sh', import.meta.url), 'utf8');
    expect(script).toContain('temporal worker deployment set-current-version');
    // The versioning keys Wharf depends on are on in the dynamic config both topologies read.
    const dynamic = parse(
      await readFile(new URL('../../deploy/dynamicconfig/wharf.yaml', import.meta.url), 'utf8'),
    ) as Record<string, [{ value: unknown }]>;
    expect(dynamic['system.enableDeploymentVersions']?.[0].value).toBe(true);
    expect(dynamic['frontend.workerVersioningWorkflowAPIs']?.[0].value).toBe(true);
  });

  it('lets the worker sandbox its scripts with bubblewrap, and requires it', () => {
    const worker = services('wharf-worker');
    expect(defaulted(worker.environment?.WHARF_SANDBOX)).toBe('required');
    expect(worker.security_opt).toEqual([
      'seccomp=unconfined',
      'apparmor=unconfined',
      'systempaths=unconfined',
    ]);
  });
});

// `./wharf cluster up` runs the same topology natively (apps/cli/src/cluster): what it shares
// with the compose file must stay the same in both.
describe('docker-compose.yml and the native cluster', () => {
  const root = new URL('../../', import.meta.url).pathname;
  // With compose's default build id (the native cluster derives its own from the workflow code).
  const native: ClusterConfig = {
    dir: '/cluster',
    root,
    ports: defaultClusterPorts,
    workers: 2,
    version: { deploymentName: 'wharf', buildId: 'local' },
  };
  const nativeEnv = serviceEnvironments(native, {});
  // Values that name where a service is: a host name in compose, 127.0.0.1 natively; a
  // container port or path; the UI's port inside its container (compose publishes it on 8233).
  const hostSpecific: Record<string, Record<string, string>> = {
    'temporal-schema': { SQL_HOST: 'postgresql' },
    'wharf-database': { PGHOST: 'postgresql' },
    temporal: {
      POSTGRES_SEEDS: 'postgresql',
      BIND_ON_IP: '0.0.0.0',
      DYNAMIC_CONFIG_FILE_PATH: 'config/dynamicconfig/wharf.yaml',
    },
    'temporal-namespace': { TEMPORAL_ADDRESS: 'temporal:7233' },
    'temporal-ui': { TEMPORAL_ADDRESS: 'temporal:7233', TEMPORAL_UI_PORT: '8080' },
    'wharf-version': { TEMPORAL_ADDRESS: 'temporal:7233' },
  };

  it('pins the versions deploy/versions.env names, which the native cluster builds', async () => {
    const versions = Object.fromEntries(
      (await readFile(new URL('../../deploy/versions.env', import.meta.url), 'utf8'))
        .split('\n')
        .filter((line) => /^[A-Z_]+=/.test(line))
        .map((line) => line.split('=') as [string, string]),
    );
    expect(versions).toEqual({ TEMPORAL_VERSION: TEMPORAL_SERVER_VERSION, TEMPORAL_UI_VERSION });
    const image = (name: string) => defaulted(services(name).image).split(':')[1];
    expect(image('temporal')).toBe(TEMPORAL_SERVER_VERSION);
    expect(image('temporal-schema')).toBe(TEMPORAL_SERVER_VERSION);
    expect(image('temporal-namespace')).toBe(TEMPORAL_SERVER_VERSION);
    expect(image('temporal-ui')).toBe(TEMPORAL_UI_VERSION);
  });

  it('gives each service the same variables, with the same values but where it runs', () => {
    for (const [name, environment] of Object.entries(nativeEnv)) {
      const composed = Object.fromEntries(
        Object.entries(services(name).environment ?? {}).map(([key, value]) => [key, defaulted(value)]),
      );
      // The native server also sets the ports of its other services (the container's defaults).
      const own = Object.fromEntries(
        Object.entries(environment).filter(
          ([key]) => name !== 'temporal' || !/_(GRPC|HTTP|MEMBERSHIP)_PORT$/.test(key),
        ),
      );
      expect(Object.keys(own).sort(), name).toEqual(Object.keys(composed).sort());
      expect({ ...own, ...hostSpecific[name] }, name).toEqual(composed);
    }
    // With the default ports, the native server's ports are the server's own defaults.
    expect(nativeEnv.temporal.FRONTEND_GRPC_PORT).toBe('7233');
    expect(nativeEnv.temporal.HISTORY_MEMBERSHIP_PORT).toBe('6934');
    expect(nativeEnv.temporal.FRONTEND_HTTP_PORT).toBe('7243');
  });

  it("gives the workers the compose workers' variables, each its own HOME, TMPDIR and data", () => {
    const composed = Object.fromEntries(
      Object.entries(services('wharf-worker').environment ?? {}).map(([key, value]) => [
        key,
        defaulted(value),
      ]),
    );
    const all = Object.fromEntries(passedWorkerVariables.map((name) => [name, 'set']));
    const [one, two] = [workerEnvironment(native, all, 1), workerEnvironment(native, all, 2)];
    const perHost = ['HOME', 'TMPDIR'];
    expect(
      Object.keys(one)
        .filter((key) => !perHost.includes(key))
        .sort(),
    ).toEqual(Object.keys(composed).sort());
    const where = {
      TEMPORAL_ADDRESS: 'temporal:7233',
      WHARF_DATA_DIR: '/data',
      WHARF_HEALTH_PORT: '8080',
      WHARF_STORE: composed.WHARF_STORE?.replace('@postgresql:', '@127.0.0.1:'),
      WHARF_BLOBS: composed.WHARF_BLOBS?.replace('http://s3:', 'http://127.0.0.1:'),
    };
    const none = workerEnvironment(native, {}, 1);
    const shared = Object.fromEntries(
      Object.entries(composed).filter(([key]) => !(passedWorkerVariables as readonly string[]).includes(key)),
    );
    for (const key of Object.keys(shared))
      expect(none[key], key).toBe(key in where ? none[key] : shared[key]);
    expect(none.WHARF_STORE).toBe(where.WHARF_STORE);
    expect(none.WHARF_BLOBS).toBe(where.WHARF_BLOBS);
    for (const key of ['WHARF_DATA_DIR', 'WHARF_HEALTH_PORT', 'HOME', 'TMPDIR'])
      expect(one[key], key).not.toBe(two[key]);
  });

  it("gives the workers and the version job the cluster's version; a cluster without one runs unversioned", () => {
    const version = { deploymentName: 'wharf', buildId: '0.1.0-633aa3997e0f' };
    const versioned = { ...native, version };
    const expected = { WHARF_DEPLOYMENT_NAME: 'wharf', WHARF_BUILD_ID: '0.1.0-633aa3997e0f' };
    expect(workerEnvironment(versioned, {}, 2)).toMatchObject(expected);
    expect(serviceEnvironments(versioned, {})['wharf-version']).toMatchObject(expected);
    const { version: _none, ...unversioned } = native;
    expect(workerEnvironment(unversioned, {}, 1)).not.toHaveProperty('WHARF_BUILD_ID');
    expect(workerEnvironment(unversioned, {}, 1)).not.toHaveProperty('WHARF_DEPLOYMENT_NAME');
  });

  it('runs the same deploy/ scripts and dynamic config, with no path of the image left in them', async () => {
    const script = await readFile(new URL('../../deploy/temporal-schema.sh', import.meta.url), 'utf8');
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion
    expect(script).toContain('"${TEMPORAL_SQL_TOOL:-temporal-sql-tool}"');
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion
    expect(script).toContain('${TEMPORAL_SCHEMA_DIR:-/etc/temporal/schema}/postgresql/v12');
    expect(services('temporal').volumes).toEqual([
      './deploy/dynamicconfig:/etc/temporal/config/dynamicconfig:ro',
    ]);
    expect(nativeEnv.temporal.DYNAMIC_CONFIG_FILE_PATH).toBe(`${root}deploy/dynamicconfig/wharf.yaml`);
    for (const job of ['temporal-schema', 'temporal-namespace', 'wharf-database', 'wharf-version'])
      expect(services(job).entrypoint, job).toEqual(['/bin/sh', `/deploy/${job}.sh`]);
  });
});

// With payload encryption on, both topologies run the codec server `wharf-codec` and tell the
// Web UI its endpoint; without keys, neither does.
describe('docker-compose.yml and the native cluster: the codec server', () => {
  const root = new URL('../../', import.meta.url).pathname;
  const native: ClusterConfig = { dir: '/cluster', root, ports: defaultClusterPorts, workers: 2 };
  const withKeys = { WHARF_CODEC_KEYS: 'k1:AAAA' };
  const withFile = { WHARF_CODEC_KEYS_FILE: '/run/secrets/wharf-codec-keys' };
  const withOidc = {
    ...withKeys,
    WHARF_CODEC_OIDC_ISSUER: 'https://login.example.com/realms/wharf',
    WHARF_CODEC_OIDC_AUDIENCE: 'temporal-ui',
    WHARF_CODEC_OIDC_JWKS_URI: 'https://login.example.com/realms/wharf/certs',
  };

  it('points the Web UI at the codec server exactly when keys are set, in both', () => {
    const composed = services('temporal-ui').environment?.TEMPORAL_CODEC_ENDPOINT;
    for (const env of [{}, withKeys, withFile]) {
      const expected = serviceEnvironments(native, env)['temporal-ui'].TEMPORAL_CODEC_ENDPOINT;
      expect(interpolate(composed, env), JSON.stringify(env)).toBe(expected);
    }
    expect(serviceEnvironments(native, withKeys)['temporal-ui'].TEMPORAL_CODEC_ENDPOINT).toBe(
      'http://127.0.0.1:8234',
    );
    expect(serviceEnvironments(native, {})['temporal-ui'].TEMPORAL_CODEC_ENDPOINT).toBe('');
  });

  it("has the Web UI forward its user's access token exactly when an OIDC issuer is set, in both", () => {
    const composed = services('temporal-ui').environment?.TEMPORAL_CODEC_PASS_ACCESS_TOKEN;
    for (const env of [{}, withKeys, withOidc]) {
      const expected = serviceEnvironments(native, env)['temporal-ui'].TEMPORAL_CODEC_PASS_ACCESS_TOKEN;
      expect(interpolate(composed, env), JSON.stringify(env)).toBe(expected);
    }
    expect(serviceEnvironments(native, withOidc)['temporal-ui'].TEMPORAL_CODEC_PASS_ACCESS_TOKEN).toBe(
      'true',
    );
  });

  it('gives wharf-codec the same variables and values but its data directory', () => {
    const composed = services('wharf-codec').environment ?? {};
    const all = { ...withOidc, ...withFile };
    expect(Object.keys(codecEnvironment(native, all)).sort()).toEqual(Object.keys(composed).sort());
    for (const env of [withKeys, withFile, withOidc]) {
      const own = codecEnvironment(native, env);
      const interpolated = Object.fromEntries(
        Object.entries(composed).map(([key, value]) => [key, interpolate(value, env)]),
      );
      // Compose passes an unset key variable as empty, which the codec server reads as unset.
      const set = Object.fromEntries(Object.entries(interpolated).filter(([, value]) => value !== ''));
      expect({ ...own, WHARF_DATA_DIR: '/data' }, JSON.stringify(env)).toEqual(set);
    }
    // The workers' data plane and keys, as this host reaches them.
    expect(codecEnvironment(native, withKeys)).toMatchObject({
      WHARF_STORE: workerEnvironment(native, withKeys, 1).WHARF_STORE,
      WHARF_BLOBS: workerEnvironment(native, withKeys, 1).WHARF_BLOBS,
      WHARF_CODEC_KEYS: workerEnvironment(native, withKeys, 1).WHARF_CODEC_KEYS,
    });
    for (const name of codecKeyVariables) {
      expect(composed[name], name).toBe(`\${${name}:-}`);
      expect(services('wharf-worker').environment?.[name], name).toBe(`\${${name}:-}`);
    }
    // The OIDC settings are the codec server's alone, passed through as set, unset by default.
    for (const name of codecOidcVariables) {
      expect(composed[name], name).toBe(`\${${name}:-}`);
      expect(codecEnvironment(native, withOidc)[name], name).toBe(withOidc[name]);
      expect(codecEnvironment(native, withKeys), name).not.toHaveProperty(name);
      expect(services('wharf-worker').environment, name).not.toHaveProperty(name);
    }
  });

  it("serves on the host's loopback, where the published PostgreSQL, S3 and UI ports are, for the UI's origins only", async () => {
    const codec = services('wharf-codec');
    const environment = codec.environment ?? {};
    expect(codec.network_mode).toBe('host');
    expect(codec.profiles).toEqual(['codec']);
    expect(codec.ports).toBeUndefined();
    expect(environment.WHARF_CODEC_HOST).toBe('127.0.0.1');
    expect(services('postgresql').ports).toContain('127.0.0.1:5432:5432');
    expect(services('s3').ports).toContain('9000:9000');
    const ui = services('temporal-ui');
    expect(ui.ports).toEqual(['8233:8080']);
    expect(environment.WHARF_CODEC_ORIGINS?.split(',')).toContain(ui.environment?.TEMPORAL_CORS_ORIGINS);
    // The endpoint the UI is given is where the codec server listens.
    expect(interpolate(ui.environment?.TEMPORAL_CODEC_ENDPOINT, withKeys)).toBe(
      `http://${environment.WHARF_CODEC_HOST}:${environment.WHARF_CODEC_PORT}`,
    );
    // The worker image's program, which the native cluster runs from the checkout.
    expect(codec.image).toBe(services('wharf-worker').image);
    expect(codec.command).toEqual(['node', '/app/dist/codec-main.js']);
    const workerPackage = JSON.parse(
      await readFile(new URL('../../apps/worker/package.json', import.meta.url), 'utf8'),
    ) as { bin: Record<string, string> };
    expect(workerPackage.bin['wharf-codec-server']).toBe('./dist/codec-main.js');
    for (const job of ['wharf-database', 's3-bucket'])
      expect(codec.depends_on?.[job]?.condition, job).toBe('service_completed_successfully');
  });
});

/**
 * A value as Compose interpolates it with `env` set: `${NAME:-default}` and `${NAME:+replacement}`
 * (an empty variable counts as unset, as `:` says).
 */
function interpolate(value: string | undefined, env: Readonly<Record<string, string>>): string {
  return (value ?? '').replace(
    /\$\{([A-Z0-9_]+):([-+])([^}]*)\}/g,
    (_match, name: string, operator, word) => {
      const set = (env[name] ?? '') !== '';
      if (operator === '-') return set ? (env[name] as string) : word;
      return set ? word : '';
    },
  );
}

/** A value as Compose reads it with no variables set: `${NAME:-default}` becomes `default`. */
function defaulted(value: string | undefined): string {
  return interpolate(value, {});
}

function services(name: string): Service {
  return compose.services[name] as Service;
}
