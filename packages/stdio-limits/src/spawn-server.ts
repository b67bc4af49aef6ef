import { type ChildProcess, fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import {
  directSpawner,
  type ProcessSpawner,
  type SpawnedExit,
  type SpawnedProcess,
  type SpawnRequest,
} from './process-spawner.js';

/** The server's script, shipped with the package in `helpers/`. */
const SERVER_SCRIPT = fileURLToPath(new URL('../helpers/spawn-server.mjs', import.meta.url));

/** Whether the server's script is there (a bundler may have left it behind): checked once. */
let serverScriptFound: boolean | undefined;

/** Node flags of the server: it holds a few requests at a time, so a small heap keeps its forks cheap. */
const SERVER_EXEC_ARGV = ['--max-semi-space-size=1', '--max-old-space-size=128'];

/** A message of the server (see `helpers/spawn-server.mjs`). */
type ServerMessage =
  | { type: 'stdin' | 'stdout' | 'stderr'; id: number }
  | { type: 'spawned'; id: number; pid: number }
  | { type: 'exit'; id: number; code: number | null; signal: NodeJS.Signals | null }
  | { type: 'error'; id: number; message: string; code?: string };

/** One process asked of the server, until it exits. */
interface InFlight {
  request: SpawnRequest;
  stdio: { stdin?: Socket; stdout?: Socket; stderr?: Socket };
  pid?: number;
  resolve: (started: SpawnedProcess) => void;
  reject: (error: Error) => void;
  exit: Promise<SpawnedExit>;
  resolveExit: (exit: SpawnedExit) => void;
}

/** Options of {@link SpawnServer}. */
export interface SpawnServerOptions {
  /** Told when the server could not start or died (its processes are then killed). Default: nothing. */
  onWarning?: (message: string) => void;
}

/**
 * Starts processes from a small helper process instead of this one. `fork()` copies the page
 * tables of the process that forks: a Temporal worker of 400 MiB spends about 10 ms of its event
 * loop per script on it, a helper of 40 MiB well under one. The helper (started at the first
 * spawn, one per server) starts each process and hands its stdio pipes back over the IPC channel
 * before reading a byte of them, then reports its exit; the caller reads and signals the process
 * as if it had started it. It does not keep this process alive, and it exits when this process
 * goes (it ignores SIGINT, SIGTERM and SIGHUP: a Ctrl-C reaches the whole process group, and the
 * owner decides what its processes do then). If it dies, the processes it started are killed (their exit reads `SIGKILL`) and the next
 * spawn starts a new one; where its script cannot be found, processes are started directly.
 *
 * @example
 * ```ts
 * const spawner = new SpawnServer();
 * const result = await captureProcess('sh', { args: ['-c', 'echo hi'], spawner });
 * result.stdout.text; // 'hi\n'
 * await spawner.close();
 * ```
 */
export class SpawnServer implements ProcessSpawner {
  readonly #options: SpawnServerOptions;
  readonly #inFlight = new Map<number, InFlight>();
  #server: ChildProcess | undefined;
  #nextId = 0;
  #closed = false;

  constructor(options: SpawnServerOptions = {}) {
    this.#options = options;
  }

  /** The server's pid while it runs (for tests and diagnostics). */
  get pid(): number | undefined {
    return this.#server?.pid;
  }

  spawn(request: SpawnRequest): Promise<SpawnedProcess> {
    if (this.#closed) return Promise.reject(new Error('the spawn server is closed'));
    serverScriptFound ??= existsSync(SERVER_SCRIPT);
    if (!serverScriptFound) return directSpawner.spawn(request);
    const server = this.#start();
    const id = ++this.#nextId;
    return new Promise<SpawnedProcess>((resolve, reject) => {
      let resolveExit: (exit: SpawnedExit) => void = () => undefined;
      const exit = new Promise<SpawnedExit>((settle) => {
        resolveExit = settle;
      });
      this.#inFlight.set(id, { request, stdio: {}, resolve, reject, exit, resolveExit });
      // Kept alive while a process it started runs: its exit comes over the channel.
      server.channel?.ref();
      server.send({
        type: 'spawn',
        id,
        file: request.file,
        args: request.args,
        ...(request.cwd === undefined ? {} : { cwd: request.cwd }),
        env: request.env,
        detached: request.detached,
        stdin: request.stdin,
      });
    });
  }

  /** Stops the server once the processes it started have exited; later spawns are refused. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#inFlight.values()].map((entry) => entry.exit));
    const server = this.#server;
    if (server === undefined || server.exitCode !== null || server.signalCode !== null) return;
    const exited = new Promise((resolve) => server.once('exit', resolve));
    // Held open until the server has gone, or this process could end first.
    server.ref();
    server.disconnect();
    await exited;
  }

  #start(): ChildProcess {
    if (this.#server !== undefined) return this.#server;
    const server = fork(SERVER_SCRIPT, [], {
      execArgv: SERVER_EXEC_ARGV,
      // What Node needs to start, nothing more: each process it starts gets its own whole
      // environment, and the owner's credentials (and NODE_OPTIONS) stay out of the server's.
      env: Object.fromEntries(
        ['PATH', 'LD_LIBRARY_PATH'].flatMap((name) => {
          const value = process.env[name];
          return value === undefined ? [] : [[name, value]];
        }),
      ),
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      serialization: 'json',
    });
    this.#server = server;
    server.unref();
    server.channel?.unref();
    server.on('message', (message: ServerMessage, handle?: Socket) => this.#onMessage(message, handle));
    // Every time, not once: a send on a channel that just closed (the server died, its exit not
    // yet seen) is reported here too, and an unheard 'error' would end this process.
    server.on('error', (error) => this.#onServerGone(server, `the spawn server failed: ${error.message}`));
    server.once('exit', (code, signal) =>
      this.#onServerGone(server, `the spawn server exited (${signal ?? `code ${code}`})`),
    );
    return server;
  }

  #onMessage(message: ServerMessage, handle: Socket | undefined): void {
    const entry = this.#inFlight.get(message.id);
    if (entry === undefined) {
      handle?.destroy();
      return;
    }
    switch (message.type) {
      case 'stdin':
      case 'stdout':
      case 'stderr':
        if (handle !== undefined) entry.stdio[message.type] = handle;
        return;
      case 'spawned': {
        const { stdout, stderr, stdin } = entry.stdio;
        entry.pid = message.pid;
        if (stdout === undefined || stderr === undefined) {
          this.#end(message.id);
          closeStdio(entry);
          entry.reject(new Error(`the spawn server started pid ${message.pid} without its stdio`));
          return;
        }
        entry.resolve({ pid: message.pid, stdin: stdin ?? null, stdout, stderr, exit: entry.exit });
        return;
      }
      case 'exit':
        this.#end(message.id);
        entry.resolveExit({ code: message.code, signal: message.signal });
        return;
      case 'error':
        this.#end(message.id);
        closeStdio(entry);
        entry.reject(Object.assign(new Error(message.message), { code: message.code }));
        return;
    }
  }

  /** Forgets a process; the channel stops holding this process open once none is in flight. */
  #end(id: number): void {
    this.#inFlight.delete(id);
    if (this.#inFlight.size === 0) this.#server?.channel?.unref();
  }

  #onServerGone(server: ChildProcess, reason: string): void {
    if (this.#server !== server) return;
    this.#server = undefined;
    if (this.#inFlight.size === 0) return;
    const started = [...this.#inFlight.values()].filter((entry) => entry.pid !== undefined).length;
    const unstarted = this.#inFlight.size - started;
    this.#options.onWarning?.(
      `${reason}; ${started} processes it started are killed` +
        (unstarted === 0 ? '' : `, ${unstarted} it had not started fail to start`),
    );
    for (const [id, entry] of this.#inFlight) {
      this.#inFlight.delete(id);
      if (entry.pid === undefined) {
        closeStdio(entry);
        entry.reject(new Error(`${reason} before it started the process`));
        continue;
      }
      // Its exit can no longer be learned: end it, so that nothing of it outlives the report.
      try {
        process.kill(entry.request.detached ? -entry.pid : entry.pid, 'SIGKILL');
      } catch {
        // already gone
      }
      entry.resolveExit({ code: null, signal: 'SIGKILL' });
    }
  }
}

/** Closes the pipes a process that is given up on had sent. */
function closeStdio(entry: InFlight): void {
  for (const stream of Object.values(entry.stdio)) stream?.destroy();
}
