import { chmod, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ClusterTopology,
  clusterSecrets,
  dataPlaneEnvironment,
  findClusterBinaries,
  freeClusterPorts,
} from '@wharf/cli/cluster';
import { wharfSearchAttributeKinds } from '@wharf/orchestrator';
import { startDevServer } from '@wharf/orchestrator/dev-server';
import { type DataPlane, openDataPlane } from '@wharf/output-store/config';
import pg from 'pg';
import { treeCpuSeconds } from './process-cpu.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * Where `orchestrator-peers` runs Wharf's side and the two ceilings: the Temporal server, the
 * processes whose CPU counts as the server's, and the data plane Wharf's worker writes to.
 */
export interface PeersServer {
  /** Printed with the rows: which server, on what persistence, with which data plane. */
  readonly describe: string;
  readonly address: string;
  readonly namespace: string;
  /** The worker's environment beyond its own settings: the data plane (none: its SQLite file). */
  readonly workerEnv: Record<string, string>;
  /** The data plane a client reads the join's refs through (none: the worker's SQLite file). */
  readonly plane?: DataPlane;
  /** CPU seconds so far of each process of the server, by name (with the cluster: Temporal server, PostgreSQL, S3). */
  serverCpuSeconds(): Promise<Record<string, number>>;
  /** Bytes the data plane holds now (with the cluster: Wharf's database and the bucket's folder). */
  storeBytes?(): Promise<number>;
  /**
   * A database of the same PostgreSQL for LangGraph.js's PostgreSQL saver, and what it holds
   * now: with the cluster, the peer durable in the same place as Wharf.
   */
  readonly langGraphPostgres?: { url: string; bytes: () => Promise<number> };
  stop(): Promise<void>;
}

/**
 * The dev server (`temporal server start-dev`: one process, SQLite in memory); the worker keeps
 * its outputs in its own SQLite file.
 */
export async function startDevPeersServer(): Promise<PeersServer> {
  const server = await startDevServer({ ui: false, searchAttributes: wharfSearchAttributeKinds });
  return {
    describe: 'Temporal dev server (start-dev, SQLite); outputs in the worker’s SQLite store',
    address: server.address,
    namespace: server.namespace,
    workerEnv: {},
    serverCpuSeconds: async () => ({ 'Temporal server': await treeCpuSeconds(server.pid) }),
    stop: () => server.stop(),
  };
}

/**
 * The native topology (`wharf cluster` with no workers of its own): the Temporal server built
 * from `go.temporal.io/server` on PostgreSQL, and the cluster's data plane (PostgreSQL + S3),
 * which Wharf's worker is pointed at as the cluster's own workers are. A string when the
 * cluster's binaries are not built: why the benchmark is skipped.
 */
export async function startClusterPeersServer(dir: string): Promise<PeersServer | string> {
  try {
    findClusterBinaries(process.env);
  } catch (error) {
    return `skipped: the native cluster's binaries are not built (${(error as Error).message}); .ci/toolchain.sh builds them (wharf_ensure_temporal_server)`;
  }
  // PostgreSQL runs as its own user when this runs as root: it must pass through the folder.
  await chmod(dir, 0o755);
  const cluster = new ClusterTopology(
    { dir: join(dir, 'cluster'), root, ports: await freeClusterPorts(0), workers: 0 },
    { env: { ...process.env } },
  );
  let plane: DataPlane | undefined;
  try {
    await cluster.up();
    const clientEnv = cluster.clientEnvironment();
    // The data plane as the cluster's workers have it: WHARF_STORE, WHARF_BLOBS, their credentials.
    const workerEnv = dataPlaneEnvironment(cluster.config, process.env);
    const storeUrl = workerEnv.WHARF_STORE as string;
    plane = await openDataPlane({
      store: storeUrl,
      blobs: workerEnv.WHARF_BLOBS as string,
      env: { ...process.env, ...clientEnv },
    });
    const pids = {
      'Temporal server': await cluster.pid('temporal'),
      PostgreSQL: await cluster.pid('postgresql'),
      S3: await cluster.pid('s3'),
    };
    const bucket = join(dir, 'cluster', 's3', 'data');
    const opened = plane;
    const langGraphUrl = await createDatabase(cluster.config.ports.postgres, 'langgraph');
    return {
      describe:
        'native cluster (the Temporal server built from go.temporal.io/server on PostgreSQL); outputs in the cluster’s PostgreSQL + S3',
      address: cluster.temporalAddress,
      namespace: clientEnv.TEMPORAL_NAMESPACE ?? 'default',
      workerEnv,
      plane: opened,
      serverCpuSeconds: async () => {
        const seconds: Record<string, number> = {};
        for (const [name, pid] of Object.entries(pids))
          seconds[name] = pid === undefined ? 0 : await treeCpuSeconds(pid);
        return seconds;
      },
      storeBytes: async () => (await databaseBytes(storeUrl)) + (await folderBytes(bucket)),
      langGraphPostgres: { url: langGraphUrl, bytes: () => databaseBytes(langGraphUrl) },
      stop: async () => {
        await opened.close().catch(() => {});
        await cluster.down();
      },
    };
  } catch (error) {
    await plane?.close().catch(() => {});
    await cluster.down().catch(() => {});
    throw error;
  }
}

/** Creates a database on the cluster's PostgreSQL as its superuser; its connection string. */
async function createDatabase(port: number, name: string): Promise<string> {
  const { postgresUser, postgresPassword } = clusterSecrets(process.env);
  const url = (database: string) =>
    `postgres://${postgresUser}:${encodeURIComponent(postgresPassword)}@127.0.0.1:${port}/${database}`;
  const client = new pg.Client({ connectionString: url('postgres') });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  return url(name);
}

/** `pg_database_size` of the database a connection string names. */
async function databaseBytes(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query<{ bytes: string }>(
      'SELECT pg_database_size(current_database()) AS bytes',
    );
    return Number(result.rows[0]?.bytes ?? 0);
  } finally {
    await client.end();
  }
}

/** Bytes of the files under a folder (the S3 service's bucket on disk). */
async function folderBytes(path: string): Promise<number> {
  let total = 0;
  const entries = await readdir(path, { recursive: true, withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    total += await stat(join(entry.parentPath, entry.name)).then(
      (info) => info.size,
      () => 0,
    );
  }
  return total;
}
