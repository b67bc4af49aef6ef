import { spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

/** What {@link ProcessSpawner.spawn} starts: a file, its arguments, where and with what. */
export interface SpawnRequest {
  file: string;
  args: readonly string[];
  cwd?: string | undefined;
  /** The whole environment of the process. */
  env: NodeJS.ProcessEnv;
  /** Start it in a process group (and session) of its own. */
  detached: boolean;
  /** Give it a stdin pipe (else stdin is `/dev/null`). */
  stdin: boolean;
  /**
   * The cgroup the process moves into (`ProcessCgroup.wrap`): a spawner that outlives its owner
   * ends it with the process.
   */
  cgroup?: string | undefined;
}

/** How a started process ended. */
export interface SpawnedExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * A process that started: its pid, its stdio, and its exit once it comes. A pipe may already
 * have ended when it is handed over (`readableEnded`): the process printed nothing and exited.
 */
export interface SpawnedProcess {
  pid: number;
  stdin: Writable | null;
  stdout: Readable;
  stderr: Readable;
  /**
   * Resolves when the process exits (its pipes may stay open longer, held by what it started).
   * Rejects when the spawner lost the process before it could learn its exit (a
   * {@link SpawnServer} whose helper died: `SPAWN_HELPER_DIED`), having ended it.
   */
  exit: Promise<SpawnedExit>;
}

/**
 * Starts processes for {@link captureProcess}: the process itself ({@link directSpawner}) or a
 * small helper process that forks instead ({@link SpawnServer}). Rejects when the process could
 * not be started (an `Error` whose message and `code` are Node's, e.g. `ENOENT`), or with a
 * `StdioLimitsError` of the spawner's own (`SPAWN_REQUEST_TOO_LARGE`, `SPAWN_HELPER_DIED`).
 *
 * @example
 * ```ts
 * const started = await directSpawner.spawn({ file: 'sh', args: ['-c', 'echo hi'], env: process.env, detached: true, stdin: false });
 * started.stdout.pipe(process.stdout);
 * await started.exit; // { code: 0, signal: null }
 * ```
 */
export interface ProcessSpawner {
  spawn(request: SpawnRequest): Promise<SpawnedProcess>;
}

/**
 * Starts each process from this one (`node:child_process` `spawn`). Forking copies this
 * process's page tables, which costs a big process (a worker of several hundred MiB) tens of
 * milliseconds of its event loop per process: see {@link SpawnServer} for the way around it.
 *
 * @example
 * ```ts
 * await captureProcess('sh', { args: ['-c', 'echo hi'], spawner: directSpawner });
 * ```
 */
export const directSpawner: ProcessSpawner = {
  spawn(request) {
    return new Promise((resolve, reject) => {
      const child = spawn(request.file, [...request.args], {
        cwd: request.cwd,
        env: request.env,
        detached: request.detached,
        stdio: [request.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
      });
      // Listened to at once: a process may exit before whoever started it looks.
      const exit = new Promise<SpawnedExit>((resolveExit) =>
        child.once('exit', (code, signal) => resolveExit({ code, signal })),
      );
      child.once('error', (error) => {
        if (child.pid === undefined) reject(error);
      });
      child.once('spawn', () =>
        resolve({
          pid: child.pid as number,
          stdin: child.stdin,
          stdout: child.stdout as Readable,
          stderr: child.stderr as Readable,
          exit,
        }),
      );
    });
  },
};
