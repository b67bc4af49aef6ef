import { spawn } from 'node:child_process';
import { InvalidOutputEventError } from './errors.js';
import type { Spawner } from './spawner.js';

/**
 * Options of {@link processSpawner}.
 *
 * @example
 * ```ts
 * const options: ProcessSpawnerOptions = { cwd: '/srv/work', timeoutMs: 60_000 };
 * ```
 */
export interface ProcessSpawnerOptions {
  readonly cwd?: string;
  /** Kill the process after this long (SIGKILL), default none. */
  readonly timeoutMs?: number;
  /** Inherit this process's environment under the spec's, default true. */
  readonly inheritEnv?: boolean;
}

/**
 * The innermost spawner for commands: runs `spec.command` with the spec's environment and
 * resolves with its exit code. stdout is discarded and stderr inherited; capture belongs to
 * a layer.
 *
 * @example
 * ```ts
 * const { exitCode } = await processSpawner().spawn({ producer, command: ['node', '-e', 'process.exit(0)'] });
 * ```
 */
export function processSpawner(options: ProcessSpawnerOptions = {}): Spawner {
  return {
    spawn: (spec) =>
      new Promise((resolve, reject) => {
        const [file, ...args] = spec.command ?? [];
        if (!file) {
          reject(new InvalidOutputEventError('command', 'must name a program to run'));
          return;
        }
        const env = { ...(options.inheritEnv === false ? {} : process.env), ...spec.env };
        const child = spawn(file, args, {
          env,
          stdio: ['ignore', 'ignore', 'inherit'],
          ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
        });
        const timer =
          options.timeoutMs === undefined
            ? undefined
            : setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
        child.once('error', (error) => {
          clearTimeout(timer);
          reject(error);
        });
        child.once('exit', (code) => {
          clearTimeout(timer);
          resolve({ exitCode: code });
        });
      }),
  };
}
