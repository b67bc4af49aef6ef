import { type ChildProcess, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { killMarkedProcesses } from './marked-processes.js';
import {
  directSpawner,
  type ProcessSpawner,
  type SpawnedExit,
  type SpawnedProcess,
  type SpawnRequest,
} from './process-spawner.js';
import { StdioLimitsError } from './stdio-limits-error.js';

/** The server's script, shipped with the package in `helpers/`. */
const SERVER_SCRIPT = fileURLToPath(new URL('../helpers/spawn-server.mjs', import.meta.url));

/** Whether the server's script is there (a bundler may have left it behind): checked once. */
let serverScriptFound: boolean | undefined;

/** Node flags of the server: it holds a few requests at a time, so a small heap keeps its forks cheap. */
const SERVER_EXEC_ARGV = ['--max-semi-space-size=1', '--max-old-space-size=128'];

/**
 * Set in the environment of every process a helper starts, to the helper's own id: when the
 * helper dies, whatever it started (or may have started: a request it had read but not yet
 * answered) is found by it and ended.
 */
export const SPAWN_HELPER_ENV = 'WHARF_SPAWN_HELPER';

/** Default {@link SpawnServerOptions.maxRequestBytes}: 16 MiB. */
export const DEFAULT_MAX_SPAWN_REQUEST_BYTES = 16 * 1024 * 1024;

/** How often a request whose write failed (its helper had died) is sent to a new helper. */
const MAX_SENDS = 3;

/** A message of the server (see `helpers/spawn-server.mjs`). */
type ServerMessage =
  | { type: 'stdin' | 'stdout' | 'stderr'; id: number }
  | { type: 'spawned'; id: number; pid: number }
  | { type: 'exit'; id: number; code: number | null; signal: NodeJS.Signals | null }
  | { type: 'error'; id: number; message: string; code?: string };

/** One helper process, and the requests sent to it that it has not answered in full. */
interface Helper {
  process: ChildProcess;
  /** Its processes carry it in {@link SPAWN_HELPER_ENV}. */
  id: string;
  inFlight: Map<number, InFlight>;
  /** Requests whose write to it failed, sent to another helper. */
  resent: number;
  gone: boolean;
}

/** One process asked of the server, until it exits or fails to start. */
interface InFlight {
  id: number;
  request: SpawnRequest;
  stdio: { stdin?: Socket; stdout?: Socket; stderr?: Socket };
  pid?: number;
  /** Handed to the caller (`spawn` resolved): from then on a loss rejects `exit`. */
  started: boolean;
  sends: number;
  /** Resolves once the current send is written (true) or failed (false). */
  sending: Promise<boolean>;
  finished: boolean;
  done: () => void;
  resolve: (started: SpawnedProcess) => void;
  reject: (error: Error) => void;
  exit: Promise<SpawnedExit>;
  resolveExit: (exit: SpawnedExit) => void;
  rejectExit: (error: Error) => void;
}

/** Options of {@link SpawnServer}. */
export interface SpawnServerOptions {
  /**
   * Told when a helper could not start or died, with what became of the processes it had
   * started or been asked for. Default: nothing.
   */
  onWarning?: (message: string) => void;
  /**
   * The largest request sent to the helper: a process's file, arguments, cwd and environment
   * as JSON (default {@link DEFAULT_MAX_SPAWN_REQUEST_BYTES}). A larger one fails alone, as
   * `SPAWN_REQUEST_TOO_LARGE`, without reaching the helper, whose small heap it would exhaust;
   * Linux would refuse it anyway (`execve` takes at most 6 MiB of arguments and environment).
   */
  maxRequestBytes?: number;
}

/**
 * Starts processes from a small helper process instead of this one. `fork()` copies the page
 * tables of the process that forks: a Temporal worker of 400 MiB spends about 10 ms of its event
 * loop per script on it, a helper of 40 MiB well under one. The helper (started at the first
 * spawn, one per server) starts each process and hands its stdio pipes back over the IPC channel
 * before reading a byte of them, then reports its exit; the caller reads and signals the process
 * as if it had started it. It does not keep this process alive; when this process goes, it ends
 * the processes it started (their process groups and cgroups), then exits. It ignores SIGINT,
 * SIGTERM and SIGHUP: a Ctrl-C reaches the whole process group, and the owner decides what its
 * processes do then.
 *
 * If the helper dies, a request whose write to it failed never reached it and goes to a new
 * helper; every process it started or may have started (a request it had been sent but not
 * answered) is ended, its group and whatever carries its {@link SPAWN_HELPER_ENV}, and fails
 * with a `StdioLimitsError` `SPAWN_HELPER_DIED` (its `spawn` or its `exit` rejects): it may
 * have run in part, so whoever asked for it runs it again as a whole, or not at all. The next
 * spawn starts a new helper. Where its script cannot be found, processes are started directly.
 *
 * @example
 * ```ts
 * const spawner = new SpawnServer({ onWarning: (message) => logger.warn(message) });
 * const result = await captureProcess('sh', { args: ['-c', 'echo hi'], spawner });
 * result.stdout.text; // 'hi\n'
 * await spawner.close();
 * ```
 */
export class SpawnServer implements ProcessSpawner {
  readonly #options: SpawnServerOptions;
  /** Every request not yet finished, whichever helper has it. */
  readonly #unfinished = new Set<InFlight>();
  readonly #finished = new WeakMap<InFlight, Promise<void>>();
  #helper: Helper | undefined;
  #nextId = 0;
  #closed = false;

  constructor(options: SpawnServerOptions = {}) {
    this.#options = options;
  }

  /** The current helper's pid while it runs (for tests and diagnostics). */
  get pid(): number | undefined {
    return this.#helper?.process.pid;
  }

  spawn(request: SpawnRequest): Promise<SpawnedProcess> {
    if (this.#closed) return Promise.reject(new Error('the spawn server is closed'));
    serverScriptFound ??= existsSync(SERVER_SCRIPT);
    if (!serverScriptFound) return directSpawner.spawn(request);
    const limit = this.#options.maxRequestBytes ?? DEFAULT_MAX_SPAWN_REQUEST_BYTES;
    const bytes = requestBytes(request);
    if (bytes > limit) {
      return Promise.reject(
        new StdioLimitsError(
          'SPAWN_REQUEST_TOO_LARGE',
          `the request to start "${request.file}" is ${bytes} bytes (its arguments and environment), over the spawn server's limit of ${limit} bytes`,
        ),
      );
    }
    return new Promise<SpawnedProcess>((resolve, reject) => {
      let resolveExit: (exit: SpawnedExit) => void = () => undefined;
      let rejectExit: (error: Error) => void = () => undefined;
      const exit = new Promise<SpawnedExit>((settle, fail) => {
        resolveExit = settle;
        rejectExit = fail;
      });
      // A caller that stopped listening must not see an unhandled rejection.
      exit.catch(() => undefined);
      let done: () => void = () => undefined;
      const entry: InFlight = {
        id: ++this.#nextId,
        request,
        stdio: {},
        started: false,
        sends: 0,
        sending: Promise.resolve(false),
        finished: false,
        done: () => done(),
        resolve,
        reject,
        exit,
        resolveExit,
        rejectExit,
      };
      this.#finished.set(
        entry,
        new Promise((settle) => {
          done = settle;
        }),
      );
      this.#unfinished.add(entry);
      this.#send(entry);
    });
  }

  /** Stops the server once the processes it started have exited; later spawns are refused. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#unfinished].map((entry) => this.#finished.get(entry)));
    const server = this.#helper?.process;
    if (server === undefined || server.exitCode !== null || server.signalCode !== null) return;
    const exited = new Promise((resolve) => server.once('exit', resolve));
    // Held open until the server has gone, or this process could end first.
    server.ref();
    server.disconnect();
    await exited;
  }

  /** Sends a request to the current helper (started if need be). */
  #send(entry: InFlight): void {
    const helper = this.#helper ?? this.#start();
    const { request } = entry;
    entry.sends++;
    helper.inFlight.set(entry.id, entry);
    // Kept alive while a process it started runs: its exit comes over the channel.
    helper.process.channel?.ref();
    const message = {
      type: 'spawn',
      id: entry.id,
      file: request.file,
      args: request.args,
      ...(request.cwd === undefined ? {} : { cwd: request.cwd }),
      env: { ...request.env, [SPAWN_HELPER_ENV]: helper.id },
      detached: request.detached,
      stdin: request.stdin,
      ...(request.cgroup === undefined ? {} : { cgroup: request.cgroup }),
    };
    entry.sending = new Promise<boolean>((resolve) => {
      try {
        // The callback follows the write: an error means the helper never got the request.
        helper.process.send(message, undefined, {}, (error) =>
          resolve(error === null || error === undefined),
        );
      } catch {
        resolve(false);
      }
    });
    void entry.sending.then((written) => {
      if (!written) this.#unreached(helper, entry);
    });
  }

  /** A request whose write failed: its helper is dead or dying; a new one gets it. */
  #unreached(helper: Helper, entry: InFlight): void {
    if (helper.inFlight.get(entry.id) !== entry || entry.finished) return;
    helper.inFlight.delete(entry.id);
    helper.resent++;
    if (this.#helper === helper) this.#helper = undefined;
    if (this.#closed || entry.sends >= MAX_SENDS) {
      this.#finish(helper, entry);
      entry.reject(new Error(`the spawn server could not be reached (${entry.sends} helpers tried)`));
      return;
    }
    this.#send(entry);
  }

  #start(): Helper {
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
    const helper: Helper = { process: server, id: randomUUID(), inFlight: new Map(), resent: 0, gone: false };
    this.#helper = helper;
    server.unref();
    server.channel?.unref();
    server.on('message', (message: ServerMessage, handle?: Socket) =>
      this.#onMessage(helper, message, handle),
    );
    // Every time, not once: an unheard 'error' would end this process.
    server.on(
      'error',
      (error) => void this.#onHelperGone(helper, `the spawn server failed: ${error.message}`),
    );
    server.once(
      'exit',
      (code, signal) =>
        void this.#onHelperGone(helper, `the spawn server exited (${signal ?? `code ${code}`})`),
    );
    return helper;
  }

  #onMessage(helper: Helper, message: ServerMessage, handle: Socket | undefined): void {
    const entry = helper.inFlight.get(message.id);
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
          this.#finish(helper, entry);
          closeStdio(entry);
          entry.reject(new Error(`the spawn server started pid ${message.pid} without its stdio`));
          return;
        }
        entry.started = true;
        entry.resolve({ pid: message.pid, stdin: stdin ?? null, stdout, stderr, exit: entry.exit });
        return;
      }
      case 'exit':
        this.#finish(helper, entry);
        entry.resolveExit({ code: message.code, signal: message.signal });
        return;
      case 'error':
        this.#finish(helper, entry);
        closeStdio(entry);
        entry.reject(Object.assign(new Error(message.message), { code: message.code }));
        return;
    }
  }

  /** Forgets a request; the channel stops holding this process open once none is in flight. */
  #finish(helper: Helper, entry: InFlight): void {
    entry.finished = true;
    helper.inFlight.delete(entry.id);
    this.#unfinished.delete(entry);
    entry.done();
    if (helper.inFlight.size === 0) helper.process.channel?.unref();
  }

  async #onHelperGone(helper: Helper, reason: string): Promise<void> {
    if (helper.gone) return;
    helper.gone = true;
    if (this.#helper === helper) this.#helper = undefined;
    // The writes under way end first: a failed one goes to a new helper (see #unreached).
    await Promise.all(
      [...helper.inFlight.values()].map((entry) =>
        Promise.race([entry.sending, new Promise((resolve) => setTimeout(resolve, 1_000).unref())]),
      ),
    );
    const lost = [...helper.inFlight.values()];
    helper.inFlight.clear();
    const resent =
      helper.resent === 0 ? '' : `; ${helper.resent} requests it never received went to a new helper`;
    if (lost.length === 0) {
      // Its owner closed it, or it died with nothing of its own running.
      if (!this.#closed || resent !== '')
        this.#options.onWarning?.(`${reason}; nothing was running on it${resent}`);
      return;
    }
    // What it started runs on: nobody would read it or reap it. End it before anyone runs it again.
    for (const entry of lost) {
      if (entry.pid === undefined) continue;
      try {
        process.kill(entry.request.detached ? -entry.pid : entry.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    const killed = await killMarkedProcesses(SPAWN_HELPER_ENV, helper.id);
    const started = lost.filter((entry) => entry.pid !== undefined).length;
    this.#options.onWarning?.(
      `${reason}; ${started} processes it started and ${lost.length - started} it may have started are ended ` +
        `(${killed} processes killed) and fail as SPAWN_HELPER_DIED${resent}`,
    );
    for (const entry of lost) {
      this.#finish(helper, entry);
      const error = new StdioLimitsError(
        'SPAWN_HELPER_DIED',
        entry.pid === undefined
          ? `${reason} after it was asked to start "${entry.request.file}": it may have started it, so it was ended`
          : `${reason} while pid ${entry.pid} ("${entry.request.file}") ran: it was ended`,
      );
      if (entry.started) {
        entry.rejectExit(error);
      } else {
        closeStdio(entry);
        entry.reject(error);
      }
    }
  }
}

/** The size of a request as the helper receives it (JSON), without the message's few fixed fields. */
function requestBytes(request: SpawnRequest): number {
  return Buffer.byteLength(
    JSON.stringify({ file: request.file, args: request.args, cwd: request.cwd, env: request.env }),
  );
}

/** Closes the pipes a process that is given up on had sent. */
function closeStdio(entry: InFlight): void {
  for (const stream of Object.values(entry.stdio)) stream?.destroy();
}
