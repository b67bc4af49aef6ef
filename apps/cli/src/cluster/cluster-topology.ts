import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { workflowBuildId } from '@wharf/orchestrator/worker';
import { type ClusterBinaries, findClusterBinaries } from './cluster-binaries.js';
import {
  type ClusterConfig,
  clusterSecrets,
  codecEndpoint,
  codecEnvironment,
  codecKeysConfigured,
  dataPlaneEnvironment,
  defaultClusterPorts,
  type ProcessEnv,
  serviceEnvironments,
  temporalPorts,
  workerEnvironment,
  workerHome,
} from './cluster-config.js';
import { ClusterError } from './cluster-error.js';
import { ManagedProcess, type ProcessState } from './managed-process.js';
import { assertPortsFree, waitFor } from './port-check.js';

const run = promisify(execFile);
const { temporal } = proto;
const versioned = temporal.api.enums.v1.WorkerVersioningMode.WORKER_VERSIONING_MODE_VERSIONED;
type Env = Readonly<Record<string, string | undefined>>;

/** Options of {@link ClusterTopology}. */
export interface ClusterTopologyOptions {
  /** Read for credentials, optional worker settings and PATH. Default `process.env`. */
  readonly env?: Env;
  /** Default: {@link findClusterBinaries} of `env`, looked up at the first start. */
  readonly binaries?: ClusterBinaries;
  /** Progress lines (`postgresql: started (pid 123)`). Default: none. */
  readonly onProgress?: (line: string) => void;
  /** How long a process gets to answer once started. Default 120 s. */
  readonly readyTimeoutMs?: number;
  /**
   * Rewrites worker `n`'s environment before each start: the fault tests point one worker's
   * Temporal, PostgreSQL or S3 endpoint at a proxy in front of it, as if its network broke.
   * Default: the environment as is.
   */
  readonly workerEnvironment?: (n: number, env: ProcessEnv) => ProcessEnv;
}

/** The long-lived processes, in start order (the compose service names; workers numbered). */
const serviceOrder = ['postgresql', 's3', 'temporal', 'temporal-ui'] as const;
/** The codec server's process: after the UI (whose origin it allows), before the workers. */
const codecName = 'wharf-codec';

/**
 * The compose topology on this machine, from real binaries: PostgreSQL (Temporal's two databases
 * and Wharf's store), an S3 service (versitygw), the Temporal server built from its Go module,
 * its Web UI server, with payload encryption on (`WHARF_CODEC_KEYS` / `WHARF_CODEC_KEYS_FILE`)
 * the codec server `wharf-codec` the Web UI decodes through, and `workers` Wharf workers, each a host of its own (HOME, TMPDIR, data
 * directory) sharing only PostgreSQL and S3 (none: a program that runs its own workers, on task
 * queues of its own, unversioned; then no version is built or made current). The one-shot jobs are the compose file's scripts in
 * `deploy/`. Every process is detached, named as in compose, and can be stopped, killed and
 * started again by name: `wharf cluster` drives it, and so do the fault tests.
 *
 * @example
 * ```ts
 * const cluster = new ClusterTopology({ dir: '.wharf-cluster', root: '.', ports: defaultClusterPorts, workers: 2 });
 * await cluster.up();
 * await cluster.kill('temporal');
 * await cluster.start('temporal');
 * await cluster.down();
 * ```
 */
export class ClusterTopology {
  private configured: ClusterConfig;
  private readonly env: Env;
  private readonly progress: (line: string) => void;
  private readonly readyTimeoutMs: number;
  private readonly workerEnvironment: (n: number, env: ProcessEnv) => ProcessEnv;
  private binariesFound: ClusterBinaries | undefined;
  private readonly processes = new Map<string, ManagedProcess>();

  constructor(config: ClusterConfig, options: ClusterTopologyOptions = {}) {
    this.env = options.env ?? process.env;
    this.configured = {
      ...config,
      dir: resolve(config.dir),
      root: resolve(config.root),
      // A cluster recorded before the codec port existed gets the default one.
      ports: { ...config.ports, codec: config.ports.codec ?? defaultClusterPorts.codec },
      codec: config.codec ?? codecKeysConfigured(this.env),
    };
    this.progress = options.onProgress ?? (() => {});
    this.readyTimeoutMs = options.readyTimeoutMs ?? 120_000;
    this.workerEnvironment = options.workerEnvironment ?? ((_n, env) => env);
    this.binariesFound = options.binaries;
  }

  /**
   * The cluster recorded in `dir` by an earlier `up` (its ports, workers and checkout), or
   * `NO_CLUSTER`.
   *
   * @example
   * ```ts
   * const cluster = await ClusterTopology.open('.wharf-cluster');
   * console.table(await cluster.status());
   * ```
   */
  static async open(dir: string, options: ClusterTopologyOptions = {}): Promise<ClusterTopology> {
    let text: string;
    try {
      text = await readFile(join(dir, 'cluster.json'), 'utf8');
    } catch {
      throw new ClusterError(
        'NO_CLUSTER',
        `no cluster in ${resolve(dir)} (start one with \`wharf cluster up\`)`,
      );
    }
    return new ClusterTopology(JSON.parse(text) as ClusterConfig, options);
  }

  /** The cluster's configuration; after `up`, with its workers' version. */
  get config(): ClusterConfig {
    return this.configured;
  }

  /** Every process's name, in start order: postgresql, s3, temporal, temporal-ui, (wharf-codec,) wharf-worker-1, … */
  get names(): string[] {
    return [
      ...serviceOrder,
      ...(this.config.codec === true ? [codecName] : []),
      ...Array.from({ length: this.config.workers }, (_, index) => `wharf-worker-${index + 1}`),
    ];
  }

  /** The Temporal frontend's address. */
  get temporalAddress(): string {
    return `127.0.0.1:${this.config.ports.temporal}`;
  }

  /** The Web UI's URL. */
  get uiUrl(): string {
    return `http://localhost:${this.config.ports.ui}`;
  }

  /** The codec server's URL when the cluster runs one (payload encryption on), else undefined. */
  get codecUrl(): string | undefined {
    return this.config.codec === true ? codecEndpoint(this.config) : undefined;
  }

  /**
   * What a client on this host needs to run swarms on the cluster (`wharf cluster env`); with a
   * codec server, `TEMPORAL_CODEC_ENDPOINT` for `temporal workflow show` (never the keys: the
   * client brings its own `WHARF_CODEC_KEYS`).
   */
  clientEnvironment(): Record<string, string> {
    const secrets = clusterSecrets(this.env);
    const codec = this.codecUrl;
    return {
      TEMPORAL_ADDRESS: this.temporalAddress,
      TEMPORAL_NAMESPACE: secrets.namespace,
      WHARF_UI_URL: this.uiUrl,
      ...(codec === undefined ? {} : { TEMPORAL_CODEC_ENDPOINT: codec }),
      ...dataPlaneEnvironment(this.config, this.env),
    };
  }

  /**
   * Starts whatever of the topology is not running, in compose's order, each once the ones it
   * depends on answer; runs the one-shot jobs (schemas, store database, bucket, namespace). Ports
   * are checked first: a taken one is `PORT_TAKEN`, naming it.
   */
  async up(): Promise<void> {
    await mkdir(this.config.dir, { recursive: true });
    // No workers, no version: the programs that bring their own workers run them unversioned.
    if (this.configured.version === undefined && this.config.workers > 0) {
      const started = Date.now();
      const buildId = await workflowBuildId({ cacheDir: join(this.config.dir, 'cache') });
      this.configured = {
        ...this.configured,
        version: { deploymentName: clusterSecrets(this.env).deploymentName, buildId },
      };
      this.progress(`build id ${buildId} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    }
    await writeFile(join(this.config.dir, 'cluster.json'), `${JSON.stringify(this.config, null, 2)}\n`);
    const binaries = this.binaries();
    const stopped: string[] = [];
    for (const name of this.names)
      if ((await this.process(name).runningPid()) === undefined) stopped.push(name);
    await assertPortsFree(this.portsOf(stopped));

    await this.initPostgres(binaries);
    await this.start('postgresql');
    await this.job('temporal-schema', serviceEnvironments(this.config, this.env)['temporal-schema'], {
      TEMPORAL_SQL_TOOL: binaries.sqlTool,
      TEMPORAL_SCHEMA_DIR: binaries.schemaDir,
    });
    await this.job('wharf-database', serviceEnvironments(this.config, this.env)['wharf-database'], {
      PATH: `${binaries.postgresBindir}:${this.env.PATH ?? ''}`,
    });
    await this.start('s3');
    await this.createBucket();
    await this.start('temporal');
    await this.job('temporal-namespace', serviceEnvironments(this.config, this.env)['temporal-namespace']);
    await this.start('temporal-ui');
    if (this.config.codec === true) await this.start(codecName);
    // The workers side by side: each bundles the workflow code on its first start.
    await Promise.all(
      this.names.filter((name) => name.startsWith('wharf-worker-')).map((name) => this.start(name)),
    );
    // Once they poll, their version becomes current: new swarms start on it.
    if (this.config.version !== undefined)
      await this.job('wharf-version', serviceEnvironments(this.config, this.env)['wharf-version']);
    await writeFile(
      join(this.config.dir, 'env'),
      Object.entries(this.clientEnvironment())
        .map(([name, value]) => `export ${name}=${shellQuote(value)}\n`)
        .join(''),
    );
  }

  /** Stops every process, the workers first (SIGTERM: they drain), PostgreSQL last. */
  async down(): Promise<void> {
    for (const name of [...this.names].reverse()) await this.stop(name);
  }

  /** Each process's pid, whether it runs, and its log. */
  async status(): Promise<ProcessState[]> {
    return Promise.all(this.names.map((name) => this.process(name).state()));
  }

  /**
   * The Worker Deployment version each worker polls with, as the Temporal server sees it (its
   * pollers of the task queue): pid → `<deployment>:<build id>`, or `unversioned`. Empty when the
   * server does not answer.
   *
   * @example
   * ```ts
   * const versions = await cluster.workerVersions(); // Map { 4242 => 'wharf:0.1.0-633aa3997e0f' }
   * ```
   */
  async workerVersions(): Promise<Map<number, string>> {
    const versions = new Map<number, string>();
    let connection: Connection | undefined;
    try {
      connection = await Connection.connect({ address: this.temporalAddress, connectTimeout: 2_000 });
      const secrets = clusterSecrets(this.env);
      const { pollers } = await connection.workflowService.describeTaskQueue({
        namespace: secrets.namespace,
        taskQueue: { name: secrets.taskQueue },
        taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
      });
      for (const poller of pollers ?? []) {
        const pid = Number(poller.identity?.split('@')[0]);
        const options = poller.deploymentOptions;
        if (Number.isInteger(pid))
          versions.set(
            pid,
            options?.workerVersioningMode === versioned && options.deploymentName
              ? `${options.deploymentName}:${options.buildId}`
              : 'unversioned',
          );
      }
    } catch {
      // The server is down: no versions to show.
    } finally {
      await connection?.close();
    }
    return versions;
  }

  /** Starts `name` unless it runs, and resolves once it answers (`START_FAILED` with its log's tail if not). */
  async start(name: string): Promise<void> {
    const managed = this.process(name);
    if ((await managed.runningPid()) !== undefined) return;
    const started = Date.now();
    await this.prepare(name);
    const pid = await managed.start();
    try {
      await waitFor(
        this.readyTimeoutMs,
        async () => (await managed.runningPid()) !== undefined,
        () => this.ready(name),
        `${name} did not answer`,
      );
    } catch (error) {
      throw new ClusterError(
        'START_FAILED',
        `${name} (pid ${pid}) did not start: ${(error as Error).message}; its log ${managed.logPath} ends:\n${await tail(managed.logPath)}`,
        { cause: error },
      );
    }
    this.progress(`${name}: running (pid ${pid}, ${((Date.now() - started) / 1000).toFixed(1)} s)`);
  }

  /** The folders a process needs before its start: the S3 service's data, a worker's HOME, TMPDIR and data. */
  private async prepare(name: string): Promise<void> {
    if (name === 's3') await mkdir(join(this.config.dir, 's3', 'data'), { recursive: true });
    if (name === codecName) await mkdir(join(this.config.dir, codecName, 'data'), { recursive: true });
    if (name.startsWith('wharf-worker-')) {
      const home = workerHome(this.config, Number(name.slice('wharf-worker-'.length)));
      for (const folder of ['data', 'tmp']) await mkdir(join(home, folder), { recursive: true });
    }
  }

  /** Stops `name` gracefully (its stop signal; SIGKILL after its timeout). */
  async stop(name: string): Promise<void> {
    const managed = this.process(name);
    const pid = await managed.runningPid();
    if (pid === undefined) return;
    await managed.stop();
    this.progress(`${name}: stopped (pid ${pid})`);
  }

  /** SIGKILLs `name`: a crash, with no shutdown of its own. */
  async kill(name: string): Promise<void> {
    const managed = this.process(name);
    const pid = await managed.runningPid();
    if (pid === undefined) return;
    await managed.kill();
    this.progress(`${name}: killed (pid ${pid})`);
  }

  /** Stops `name` and starts it again. */
  async restart(name: string): Promise<void> {
    await this.stop(name);
    await this.start(name);
  }

  /** The pid of `name` when it runs. */
  pid(name: string): Promise<number | undefined> {
    return this.process(name).runningPid();
  }

  private binaries(): ClusterBinaries {
    this.binariesFound ??= findClusterBinaries(this.env);
    return this.binariesFound;
  }

  private process(name: string): ManagedProcess {
    let managed = this.processes.get(name);
    if (managed === undefined) {
      if (!this.names.includes(name))
        throw new ClusterError(
          'UNKNOWN_PROCESS',
          `no process ${name} in the cluster (${this.names.join(', ')})`,
        );
      managed = new ManagedProcess(this.config.dir, { ...this.specOf(name), name });
      this.processes.set(name, managed);
    }
    return managed;
  }

  /** The environment every process inherits: PATH and the locale, none of the caller's settings. */
  private baseEnv(): Record<string, string> {
    const base: Record<string, string> = {};
    for (const name of ['PATH', 'LANG', 'LC_ALL', 'TZ']) {
      const value = this.env[name];
      if (value !== undefined) base[name] = value;
    }
    return base;
  }

  private specOf(name: string): Omit<ConstructorParameters<typeof ManagedProcess>[1], 'name'> {
    const { dir, ports, root } = this.config;
    const services = () => serviceEnvironments(this.config, this.env);
    switch (name) {
      case 'postgresql': {
        const binaries = this.binaries();
        return {
          command: join(binaries.postgresBindir, 'postgres'),
          args: [
            ...['-D', join(dir, 'postgresql', 'data'), '-p', String(ports.postgres)],
            ...['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
          ],
          env: { ...this.baseEnv(), LC_ALL: 'C' },
          ...postgresUser(),
          // Fast shutdown: sessions are ended, the data is flushed.
          stopSignal: 'SIGINT',
          stopTimeoutMs: 60_000,
        };
      }
      case 's3': {
        const secrets = clusterSecrets(this.env);
        return {
          command: this.binaries().versitygw,
          args: [
            ...[
              '--access',
              secrets.s3AccessKeyId,
              '--secret',
              secrets.s3SecretAccessKey,
              '--region',
              'us-east-1',
            ],
            ...['--port', `127.0.0.1:${ports.s3}`, '--quiet', 'posix', join(dir, 's3', 'data')],
          ],
          env: this.baseEnv(),
        };
      }
      case 'temporal':
        return {
          command: this.binaries().temporalServer,
          args: ['start'],
          env: { ...this.baseEnv(), ...services().temporal },
          stopTimeoutMs: 30_000,
        };
      case 'temporal-ui':
        return {
          command: this.binaries().uiServer,
          args: ['--root', this.binaries().uiRoot, '--env', 'docker', 'start'],
          env: { ...this.baseEnv(), ...services()['temporal-ui'] },
        };
      case codecName:
        return {
          command: process.execPath,
          args: [join(root, 'apps', 'worker', 'dist', 'codec-main.js')],
          env: { ...this.baseEnv(), ...codecEnvironment(this.config, this.env) },
          cwd: join(dir, codecName),
        };
      default: {
        const n = Number(name.slice('wharf-worker-'.length));
        return {
          command: process.execPath,
          args: [join(root, 'apps', 'worker', 'dist', 'main.js')],
          env: this.workerEnvironment(n, {
            ...this.baseEnv(),
            ...workerEnvironment(this.config, this.env, n),
          }),
          cwd: workerHome(this.config, n),
        };
      }
    }
  }

  /** True once `name` answers: PostgreSQL accepts sessions, S3 and the UI answer HTTP, Temporal is SERVING, the codec server decodes, a worker's /healthz is ok. */
  private async ready(name: string): Promise<boolean> {
    const { ports } = this.config;
    switch (name) {
      case 'postgresql':
        await run(
          join(this.binaries().postgresBindir, 'pg_isready'),
          ['-q', '-h', '127.0.0.1', '-p', String(ports.postgres)],
          {
            timeout: 5_000,
          },
        );
        return true;
      case 's3':
        await fetch(`http://127.0.0.1:${ports.s3}`, { signal: AbortSignal.timeout(2_000) });
        return true;
      case 'temporal': {
        const connection = await Connection.connect({ address: this.temporalAddress, connectTimeout: 2_000 });
        try {
          const { status } = await connection.healthService.check({});
          return status === 1;
        } finally {
          await connection.close();
        }
      }
      case 'temporal-ui':
        return (await fetch(`http://127.0.0.1:${ports.ui}/`, { signal: AbortSignal.timeout(2_000) })).ok;
      case codecName: {
        // The codec server has no health route: an empty decode is its cheapest answer (401 with
        // an OIDC issuer, whose tokens this check has none of: it answers all the same).
        const { status } = await fetch(`${codecEndpoint(this.config)}/decode`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: '{"payloads":[]}',
          signal: AbortSignal.timeout(2_000),
        });
        return status === 200 || status === 401;
      }
      default: {
        const n = Number(name.slice('wharf-worker-'.length));
        const url = `http://127.0.0.1:${ports.workerHealth + n - 1}/healthz`;
        return (await fetch(url, { signal: AbortSignal.timeout(2_000) })).ok;
      }
    }
  }

  /** Ports the named processes listen on, each with what it is and the option that moves it. */
  private portsOf(names: readonly string[]): Map<number, string> {
    const { ports } = this.config;
    const result = new Map<number, string>();
    for (const name of names) {
      if (name === 'postgresql') result.set(ports.postgres, 'PostgreSQL, --postgres-port');
      else if (name === 's3') result.set(ports.s3, 'S3 service, --s3-port');
      else if (name === 'temporal-ui') result.set(ports.ui, 'Temporal Web UI, --ui-port');
      else if (name === codecName) result.set(ports.codec, 'codec server, --codec-port');
      else if (name === 'temporal')
        for (const [variable, port] of Object.entries(temporalPorts(ports.temporal)))
          result.set(port, `Temporal server ${variable}, moved with --temporal-port`);
      else {
        const n = Number(name.slice('wharf-worker-'.length));
        result.set(ports.workerHealth + n - 1, `${name} health, --worker-health-port`);
      }
    }
    return result;
  }

  /** `initdb` once: the superuser `temporal` with the compose file's password, scram over TCP. */
  private async initPostgres(binaries: ClusterBinaries): Promise<void> {
    const folder = join(this.config.dir, 'postgresql');
    const data = join(folder, 'data');
    if (existsSync(join(data, 'PG_VERSION'))) return;
    this.progress('postgresql: initdb');
    await rm(data, { recursive: true, force: true });
    await mkdir(folder, { recursive: true });
    const user = postgresUser();
    const passwordFile = join(folder, 'password');
    await writeFile(passwordFile, `${clusterSecrets(this.env).postgresPassword}\n`, { mode: 0o600 });
    if (user.uid !== undefined && user.gid !== undefined) {
      await chown(folder, user.uid, user.gid);
      await chown(passwordFile, user.uid, user.gid);
    }
    const secrets = clusterSecrets(this.env);
    if (user.uid !== undefined) {
      // The `postgres` user must reach its folder: every folder above it must let others through.
      await run('test', ['-x', folder], { ...user }).catch((error: unknown) => {
        throw new ClusterError(
          'START_FAILED',
          `PostgreSQL runs as the \`postgres\` user, which cannot reach ${folder}: let others through the folders above it (chmod o+x) or choose another --dir`,
          { cause: error },
        );
      });
    }
    try {
      await run(
        join(binaries.postgresBindir, 'initdb'),
        [
          '-D',
          data,
          '-U',
          secrets.postgresUser,
          `--pwfile=${passwordFile}`,
          '-A',
          'scram-sha-256',
          '-E',
          'UTF8',
          '--no-locale',
        ],
        { env: { ...this.baseEnv(), LC_ALL: 'C' }, cwd: folder, timeout: 120_000, ...user },
      );
    } catch (error) {
      throw new ClusterError(
        'START_FAILED',
        `initdb failed: ${(error as { stderr?: string }).stderr ?? String(error)}`,
        {
          cause: error,
        },
      );
    } finally {
      await rm(passwordFile, { force: true });
    }
  }

  /** Runs `deploy/<name>.sh` as compose's one-shot service `name` does, its output to `<dir>/jobs/<name>.log`. */
  private async job(
    name: string,
    serviceEnv: Record<string, string>,
    extra: Record<string, string> = {},
  ): Promise<void> {
    const script = join(this.config.root, 'deploy', `${name}.sh`);
    const logs = join(this.config.dir, 'jobs');
    await mkdir(logs, { recursive: true });
    const started = Date.now();
    try {
      const { stdout, stderr } = await run('sh', [script], {
        env: { ...this.baseEnv(), ...serviceEnv, ...extra },
        cwd: this.config.dir,
        timeout: 180_000,
        maxBuffer: 16 * 2 ** 20,
      });
      await writeFile(join(logs, `${name}.log`), stdout + stderr);
    } catch (error) {
      const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
      await writeFile(join(logs, `${name}.log`), stdout + stderr);
      throw new ClusterError(
        'JOB_FAILED',
        `${name} (${script}) failed:\n${(stdout + stderr).split('\n').slice(-20).join('\n')}`,
        {
          cause: error,
        },
      );
    }
    this.progress(`${name}: done (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  }

  /** The s3-bucket job: the bucket `wharf`, unless it exists. */
  private async createBucket(): Promise<void> {
    const secrets = clusterSecrets(this.env);
    const { CreateBucketCommand, S3Client } = await import('@aws-sdk/client-s3');
    const client = new S3Client({
      endpoint: `http://127.0.0.1:${this.config.ports.s3}`,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: secrets.s3AccessKeyId, secretAccessKey: secrets.s3SecretAccessKey },
    });
    try {
      await client.send(new CreateBucketCommand({ Bucket: secrets.bucket }));
    } catch (error) {
      const name = (error as { name?: unknown }).name;
      if (name !== 'BucketAlreadyOwnedByYou' && name !== 'BucketAlreadyExists')
        throw new ClusterError('JOB_FAILED', `s3-bucket failed: ${String(error)}`, { cause: error });
    } finally {
      client.destroy();
    }
    this.progress(`s3-bucket: done (${secrets.bucket})`);
  }
}

/** Run as root, PostgreSQL runs as the `postgres` user (it refuses root); else as we are. */
function postgresUser(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    return { uid, gid };
  } catch (error) {
    throw new ClusterError(
      'START_FAILED',
      'running as root, PostgreSQL needs the `postgres` user to run as (the Debian postgresql package creates it)',
      { cause: error },
    );
  }
}

async function tail(path: string): Promise<string> {
  try {
    return (await readFile(path, 'utf8')).split('\n').slice(-20).join('\n');
  } catch {
    return '(no log)';
  }
}

function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}
