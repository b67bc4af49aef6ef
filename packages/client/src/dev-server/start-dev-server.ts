import { type ChildProcess, spawn } from 'node:child_process';
import { Connection } from '@temporalio/client';
import { WharfOrchestratorError } from '@wharf/swarm';
import { ensureTemporalCli } from './ensure-temporal-cli.js';
import { getFreePort } from './free-port.js';

/** Types a custom search attribute can have on the dev server. */
export type SearchAttributeKind = 'Keyword' | 'Text' | 'Int' | 'Double' | 'Bool' | 'Datetime' | 'KeywordList';

/** Options of {@link startDevServer}. */
export interface StartDevServerOptions {
  /** Path of the `temporal` binary. Default: {@link ensureTemporalCli}. */
  cliPath?: string;
  /** Address to bind. Default `127.0.0.1`. */
  ip?: string;
  /** gRPC port. Default: a free port. */
  port?: number;
  /** Web UI port. Default: a free port. Ignored when `ui` is false. */
  uiPort?: number;
  /** Serve the Web UI. Default `true`. */
  ui?: boolean;
  /**
   * The codec server the Web UI decodes payloads through (`--ui-codec-endpoint`), e.g. the one
   * `wharf codec-server` or `startDataPlaneCodecServer` runs. Default none: the UI shows
   * encrypted payloads as they are.
   */
  uiCodecEndpoint?: string;
  /** SQLite file for durable state. Default: in memory. */
  dbFilename?: string;
  /** Namespace to create and wait for. Default `default`. */
  namespace?: string;
  /** Custom search attributes to register, name → type. */
  searchAttributes?: Record<string, SearchAttributeKind>;
  /** How long to wait for the server to answer. Default 60 s. */
  startTimeoutMs?: number;
  /** Every line the server prints (it prints a lot; default: kept only for error messages). */
  onLog?: (line: string) => void;
}

/** A running dev server. Stop it with {@link DevServer.stop} or `await using`. */
export interface DevServer {
  /** gRPC address for clients and workers, `host:port`. */
  readonly address: string;
  /** Web UI base URL, when the UI is on. */
  readonly uiUrl: string | undefined;
  readonly namespace: string;
  /** Process id of the supervising shell (leader of the server's process group). */
  readonly pid: number;
  /** Stops the server and waits for it to exit. Safe to call twice. */
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

// The server runs under a tiny shell that also stops it when our stdin closes, which
// happens when this process dies for any reason, including SIGKILL. No orphan survives us.
const WATCHDOG = [
  'exec 3<&0',
  '"$0" "$@" </dev/null &',
  'child=$!',
  '( read -r _ <&3; kill -TERM "$child" 2>/dev/null ) &',
  'watcher=$!',
  'trap \'kill -TERM "$child" 2>/dev/null\' TERM INT HUP',
  'status=0',
  'while kill -0 "$child" 2>/dev/null; do wait "$child"; status=$?; done',
  'kill "$watcher" 2>/dev/null',
  'exit "$status"',
].join('\n');

const running = new Set<ChildProcess>();
let exitHooksInstalled = false;

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

function installExitHooks(): void {
  if (exitHooksInstalled) return;
  exitHooksInstalled = true;
  process.on('exit', () => {
    for (const child of running) killGroup(child, 'SIGTERM');
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const handler = () => {
      // Another handler owns the shutdown: it stops the servers when it is done with them (a
      // worker draining its steps still reports to them); the exit hook and the watchdog end
      // them if this process exits first. Otherwise stop them and exit as the signal would.
      if (process.listenerCount(signal) > 1) return;
      for (const child of running) killGroup(child, 'SIGTERM');
      process.off(signal, handler);
      process.kill(process.pid, signal);
    };
    process.on(signal, handler);
  }
}

/**
 * Starts `temporal server start-dev` on free ports, waits until its namespace answers,
 * and returns a handle that always stops it (also when this process is interrupted or
 * killed).
 *
 * @example
 * ```ts
 * await using server = await startDevServer({ searchAttributes: { WharfSwarm: 'Keyword' } });
 * const connection = await Connection.connect({ address: server.address });
 * ```
 */
export async function startDevServer(options: StartDevServerOptions = {}): Promise<DevServer> {
  const cliPath = options.cliPath ?? (await ensureTemporalCli()).path;
  // A free port may be taken by another process before the server binds it (the CLI also picks
  // its own HTTP and metrics ports): when the server says so, start again on fresh ports, unless
  // the caller chose the port.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(cliPath, options);
    } catch (error) {
      const portTaken =
        WharfOrchestratorError.isInstance(error) && /address already in use/.test(error.message);
      if (!portTaken || options.port !== undefined || attempt >= PORT_ATTEMPTS) throw error;
    }
  }
}

/** How many times {@link startDevServer} starts the server when a port it chose was taken. */
const PORT_ATTEMPTS = 4;

async function startOnce(cliPath: string, options: StartDevServerOptions): Promise<DevServer> {
  const ip = options.ip ?? '127.0.0.1';
  const namespace = options.namespace ?? 'default';
  const ui = options.ui ?? true;
  const port = options.port ?? (await getFreePort(ip));
  const uiPort = ui ? (options.uiPort ?? (await getFreePort(ip))) : undefined;

  const args = ['server', 'start-dev', '--ip', ip, '--port', String(port), '--namespace', namespace];
  if (uiPort !== undefined) args.push('--ui-port', String(uiPort), '--ui-disable-news-fetch');
  else args.push('--headless');
  if (uiPort !== undefined && options.uiCodecEndpoint !== undefined)
    args.push('--ui-codec-endpoint', options.uiCodecEndpoint);
  if (options.dbFilename !== undefined) args.push('--db-filename', options.dbFilename);
  for (const [name, kind] of Object.entries(options.searchAttributes ?? {})) {
    args.push('--search-attribute', `${name}=${kind}`);
  }

  installExitHooks();
  const child = spawn('/bin/sh', ['-c', WATCHDOG, cliPath, ...args], {
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
    // The OTEL_* settings are Wharf's tracing, not the server's: it refuses some Wharf takes
    // (`OTEL_TRACES_EXPORTER=console`) and would not start.
    env: Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('OTEL_'))),
  });
  running.add(child);
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      running.delete(child);
      resolve();
    });
  });

  const recent: string[] = [];
  const onChunk = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line.trim() === '') continue;
      recent.push(line);
      if (recent.length > 40) recent.shift();
      options.onLog?.(line);
    }
  };
  child.stdout?.on('data', onChunk);
  child.stderr?.on('data', onChunk);
  child.stdin?.on('error', () => {});

  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      child.stdin?.end();
      killGroup(child, 'SIGTERM');
      const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    })();
    return stopped;
  };

  const address = `${ip}:${port}`;
  try {
    await waitUntilServing(address, namespace, options.startTimeoutMs ?? 60_000, exited);
  } catch (error) {
    await stop();
    throw new WharfOrchestratorError(
      'DEV_SERVER_FAILED',
      [
        `temporal server start-dev did not become ready on ${address}: ${(error as Error).message}`,
        `command: ${cliPath} ${args.join(' ')}`,
        'last output:',
        ...recent.slice(-15).map((line) => `  ${line}`),
      ].join('\n'),
      { cause: error },
    );
  }

  return {
    address,
    uiUrl: uiPort === undefined ? undefined : `http://${ip}:${uiPort}`,
    namespace,
    pid: child.pid ?? -1,
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

async function waitUntilServing(
  address: string,
  namespace: string,
  timeoutMs: number,
  exited: Promise<void>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (gone) throw new Error('the server process exited');
    try {
      const connection = await Connection.connect({ address, connectTimeout: 2_000 });
      try {
        await connection.workflowService.describeNamespace({ namespace });
        return;
      } finally {
        await connection.close();
      }
    } catch (error) {
      lastError = error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  throw new Error(
    `timed out after ${timeoutMs} ms (${(lastError as Error | undefined)?.message ?? 'no answer'})`,
  );
}
