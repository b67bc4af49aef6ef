import { createServer, Socket } from 'node:net';
import { ClusterError } from './cluster-error.js';

/**
 * Refuses (`PORT_TAKEN`) when any of `ports` (port → what listens there) cannot be bound on
 * 127.0.0.1, naming every taken one and the option that moves it.
 *
 * @example
 * ```ts
 * await assertPortsFree(new Map([[7233, 'Temporal frontend (--temporal-port)']]));
 * ```
 */
export async function assertPortsFree(ports: ReadonlyMap<number, string>): Promise<void> {
  const taken: string[] = [];
  for (const [port, what] of ports) if (!(await canBind(port))) taken.push(`${port} (${what})`);
  if (taken.length > 0)
    throw new ClusterError(
      'PORT_TAKEN',
      `port${taken.length > 1 ? 's' : ''} ${taken.join(', ')} ${taken.length > 1 ? 'are' : 'is'} taken by another process: ` +
        'stop it, or move the cluster with the option named',
    );
}

function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/**
 * Resolves once something accepts TCP connections on 127.0.0.1:`port`; rejects after `timeoutMs`
 * or as soon as `alive()` says the process that should listen is gone.
 *
 * @example
 * ```ts
 * await waitForPort(7233, 60_000, async () => true);
 * ```
 */
export async function waitForPort(
  port: number,
  timeoutMs: number,
  alive: () => Promise<boolean>,
): Promise<void> {
  await waitFor(timeoutMs, alive, () => connects(port), `nothing listens on 127.0.0.1:${port}`);
}

/**
 * Polls `ready` every 200 ms until it is true; rejects with `what` after `timeoutMs`, or when
 * `alive()` turns false.
 *
 * @example
 * ```ts
 * await waitFor(30_000, async () => true, async () => (await fetch(url)).ok, 'no answer');
 * ```
 */
export async function waitFor(
  timeoutMs: number,
  alive: () => Promise<boolean>,
  ready: () => Promise<boolean>,
  what: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await ready().catch(() => false)) return;
    if (!(await alive())) throw new Error('the process exited');
    if (Date.now() > deadline) throw new Error(`${what} after ${Math.round(timeoutMs / 1000)} s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function connects(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    socket.setTimeout(1000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
    socket.connect(port, '127.0.0.1');
  });
}
