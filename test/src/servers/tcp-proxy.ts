import { once } from 'node:events';
import { readdir, readFile, readlink } from 'node:fs/promises';
import { createServer, type Socket, connect as tcpConnect } from 'node:net';

/** Whose connections a cut drops: all of them, or those of the processes whose pids it gives. */
export type CutScope = 'all' | { readonly pids: () => Promise<readonly number[]> };

/** A running {@link startTcpProxy}. */
export interface TcpProxy {
  /** The port it listens on (127.0.0.1). */
  readonly port: number;
  /** `127.0.0.1:<port>`. */
  readonly address: string;
  /**
   * Drops the open connections in `scope` (default all) and refuses new ones until
   * {@link TcpProxy.restore}: the network between those clients and the target is cut.
   */
  cut(scope?: CutScope): Promise<void>;
  /** Lets connections through again. */
  restore(): void;
  /** Whether it is cut now. */
  readonly isCut: boolean;
  close(): Promise<void>;
}

/**
 * A TCP proxy on 127.0.0.1 in front of `target` (`host:port`), for the fault tests: a worker that
 * reaches PostgreSQL, S3 or Temporal through it loses that service, and only that one, while the
 * proxy is {@link TcpProxy.cut}: open connections are destroyed (the client reads a reset) and
 * new ones are closed as soon as they are accepted. A cut can be scoped to some processes (found
 * by the socket's inode among their file descriptors, Linux only): every worker of a data plane
 * must name it by the same URL, so one proxy serves them all and cuts off only one of them.
 *
 * @example
 * ```ts
 * const proxy = await startTcpProxy('127.0.0.1:5432');
 * proxy.cut();
 * proxy.restore();
 * await proxy.close();
 * ```
 */
export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const [host, port] = [
    target.slice(0, target.lastIndexOf(':')),
    Number(target.slice(target.lastIndexOf(':') + 1)),
  ];
  const open = new Set<Socket>();
  let scope: CutScope | undefined;
  const server = createServer(async (client) => {
    client.pause();
    if (scope !== undefined && (await isInScope(client, scope))) {
      client.resetAndDestroy();
      return;
    }
    const upstream = tcpConnect({ host, port });
    (client as Socket & { fromClient?: boolean }).fromClient = true;
    open.add(client).add(upstream);
    const drop = () => {
      open.delete(client);
      open.delete(upstream);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
    client.resume();
  });
  server.listen({ host: '127.0.0.1', port: 0 });
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy has no TCP port');
  return {
    port: address.port,
    address: `127.0.0.1:${address.port}`,
    get isCut() {
      return scope !== undefined;
    },
    async cut(cutScope: CutScope = 'all') {
      scope = cutScope;
      for (const socket of [...open]) {
        if (!(socket as Socket & { fromClient?: boolean }).fromClient) continue;
        if (await isInScope(socket, cutScope)) socket.resetAndDestroy();
      }
    },
    restore() {
      scope = undefined;
    },
    async close() {
      for (const socket of open) socket.destroy();
      open.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Whether `socket` (accepted by the proxy) is in `scope`: its peer's socket is among the scoped processes' descriptors. */
async function isInScope(socket: Socket, scope: CutScope): Promise<boolean> {
  if (scope === 'all') return true;
  const inode = await peerInode(socket);
  if (inode === undefined) return false;
  for (const pid of await scope.pids()) {
    const fds = await readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
    for (const fd of fds) {
      const link = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
      if (link === `socket:[${inode}]`) return true;
    }
  }
  return false;
}

/** The inode of the peer's end of `socket` (a loopback TCP connection), from /proc/net/tcp. */
async function peerInode(socket: Socket): Promise<string | undefined> {
  const hexPort = (port: number | undefined) => (port ?? 0).toString(16).toUpperCase().padStart(4, '0');
  // The peer's side: its local address is our remote one, its remote address our local one.
  const local = `:${hexPort(socket.remotePort)}`;
  const remote = `:${hexPort(socket.localPort)}`;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const text = await readFile(table, 'utf8').catch(() => '');
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields[1]?.endsWith(local) && fields[2]?.endsWith(remote)) return fields[9];
    }
  }
  return undefined;
}
