import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CliError } from '../cli-error.js';
import { type ClusterPorts, clusterSecrets, defaultClusterPorts } from '../cluster/cluster-config.js';
import { ClusterError } from '../cluster/cluster-error.js';
import { ClusterTopology } from '../cluster/cluster-topology.js';
import type { CliIo } from '../output.js';

/** Options of `wharf cluster up`. */
export interface ClusterUpOptions {
  dir: string;
  workers: number;
  temporalPort?: number;
  uiPort?: number;
  postgresPort?: number;
  s3Port?: number;
  /** The codec server's port (it runs only with `WHARF_CODEC_KEYS` / `WHARF_CODEC_KEYS_FILE`). */
  codecPort?: number;
  workerHealthPort?: number;
  /** The workers' build id (`--build-id`); default derived from the workflow code (`workflowBuildId`). */
  buildId?: string;
}

/**
 * `wharf cluster up|down|status|env`: the compose topology as native processes (see
 * {@link ClusterTopology}), its state in `dir`. Errors are CLI errors: a taken port or a missing
 * binary is USAGE, a process that would not start UNREACHABLE.
 *
 * @example
 * ```ts
 * await clusterCommand('status', { dir: '.wharf-cluster', workers: 2 }, io);
 * ```
 */
export async function clusterCommand(
  action: 'up' | 'down' | 'status' | 'env',
  options: ClusterUpOptions,
  io: CliIo,
): Promise<void> {
  try {
    const onProgress = (line: string) => io.err(`wharf cluster: ${line}`);
    if (action === 'up') {
      const started = Date.now();
      const ports: ClusterPorts = {
        temporal: options.temporalPort ?? defaultClusterPorts.temporal,
        ui: options.uiPort ?? defaultClusterPorts.ui,
        postgres: options.postgresPort ?? defaultClusterPorts.postgres,
        s3: options.s3Port ?? defaultClusterPorts.s3,
        codec: options.codecPort ?? defaultClusterPorts.codec,
        workerHealth: options.workerHealthPort ?? defaultClusterPorts.workerHealth,
      };
      const cluster = new ClusterTopology(
        {
          dir: options.dir,
          root: checkoutRoot(),
          ports,
          workers: options.workers,
          ...(options.buildId === undefined
            ? {}
            : {
                version: {
                  deploymentName: clusterSecrets(process.env).deploymentName,
                  buildId: options.buildId,
                },
              }),
        },
        { onProgress },
      );
      await cluster.up();
      io.err(`wharf cluster: up in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      const version = cluster.config.version;
      io.out(
        `Temporal ${cluster.temporalAddress}, Web UI ${cluster.uiUrl}, task queue wharf${version === undefined ? '' : `, current version ${version.deploymentName}:${version.buildId}`}`,
      );
      if (cluster.codecUrl !== undefined)
        io.out(
          `Codec server ${cluster.codecUrl}: the Web UI decrypts through it (run swarms with the same WHARF_CODEC_KEYS / WHARF_CODEC_KEYS_FILE)`,
        );
      io.out(
        `Run a swarm on its workers: eval "$(wharf cluster env --dir ${options.dir})" && wharf run <swarm.yaml> --task-queue wharf --no-worker`,
      );
      return;
    }
    const cluster = await ClusterTopology.open(options.dir, { onProgress });
    if (action === 'down') await cluster.down();
    else if (action === 'env') {
      for (const [name, value] of Object.entries(cluster.clientEnvironment()))
        io.out(`export ${name}='${value.replaceAll("'", `'\\''`)}'`);
    } else {
      const versions = await cluster.workerVersions();
      for (const state of await cluster.status()) {
        // A worker's version as the server sees it polling, else as configured (not polling yet).
        const configured = cluster.config.version;
        const version = !state.name.startsWith('wharf-worker-')
          ? ''
          : ((state.pid === undefined ? undefined : versions.get(state.pid)) ??
            (configured === undefined
              ? 'unversioned'
              : `${configured.deploymentName}:${configured.buildId} (not polling)`));
        io.out(
          `${state.name.padEnd(16)} ${state.running ? `running  pid ${state.pid}` : 'stopped'.padEnd(8)}  ${state.log}${version === '' ? '' : `  version ${version}`}`,
        );
      }
    }
  } catch (error) {
    if (!ClusterError.isInstance(error)) throw error;
    const code = error.code === 'START_FAILED' || error.code === 'JOB_FAILED' ? 'UNREACHABLE' : 'USAGE';
    throw new CliError(code, `${error.code}: ${error.message}`, { cause: error });
  }
}

/** The Wharf checkout this CLI runs from (`deploy/` and `apps/worker` are read there). */
function checkoutRoot(): string {
  const root = resolve(fileURLToPath(new URL('../../../../', import.meta.url)));
  if (
    !existsSync(join(root, 'deploy', 'versions.env')) ||
    !existsSync(join(root, 'apps', 'worker', 'dist', 'main.js'))
  )
    throw new ClusterError(
      'NOT_BUILT',
      `wharf cluster runs from a built Wharf checkout (./wharf cluster up); ${root} is not one`,
    );
  return root;
}
