import { createServer } from 'node:net';
import { type ClusterPorts, defaultClusterPorts, temporalPorts } from './cluster-config.js';

function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/**
 * Ports for a cluster off the defaults (another cluster or dev server may hold those), for a
 * test or a benchmark,
 * every one of them free: Temporal's (all under 32768), the UI's, PostgreSQL's, S3's, the codec server's and
 * `workerHealthPorts` workers' health ports (two by default).
 *
 * @example
 * ```ts
 * const cluster = new ClusterTopology({ dir, root, ports: await freeClusterPorts(), workers: 2 });
 * ```
 */
export async function freeClusterPorts(workerHealthPorts = 2): Promise<ClusterPorts> {
  for (let attempt = 0; attempt < 50; attempt++) {
    // Temporal's PostgreSQL schema keeps membership ports as smallint: all of them under 32768.
    const base = 10_000 + Math.floor(Math.random() * 200) * 100;
    const ports = {
      temporal: base + 33,
      ui: base + 50,
      postgres: base + 60,
      s3: base + 70,
      codec: base + 90,
      workerHealth: base + 81,
    };
    const all = [
      ...Object.values(temporalPorts(ports.temporal)),
      ports.ui,
      ports.postgres,
      ports.s3,
      ports.codec,
      ...Array.from({ length: workerHealthPorts }, (_, n) => ports.workerHealth + n),
    ];
    if ((await Promise.all(all.map(canBind))).every(Boolean)) return ports;
  }
  return defaultClusterPorts;
}
