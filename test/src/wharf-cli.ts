import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** The built `wharf` command (apps/cli/dist: `pnpm build` first). */
export const wharfCliPath = fileURLToPath(new URL('../../apps/cli/dist/main.js', import.meta.url));

/** What one `wharf` process did. */
export interface WharfCliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the real `wharf` command in `cwd` and returns its exit code and output, whatever the code.
 * `env` is added to this process's environment (a variable set to `undefined` is left out).
 *
 * @example
 * ```ts
 * const run = await runWharf(['validate', 'swarm.yaml'], dir);
 * ```
 */
export async function runWharf(
  args: string[],
  cwd: string,
  options: { timeoutMs?: number; env?: Record<string, string | undefined> } = {},
): Promise<WharfCliRun> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [wharfCliPath, ...args], {
      cwd,
      timeout: options.timeoutMs ?? 120_000,
      env: { ...process.env, ...options.env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** A `wharf` process started by {@link spawnWharf}, its output read as it comes. */
export interface SpawnedWharf {
  child: ChildProcess;
  /** Everything it printed so far. */
  output(): { stdout: string; stderr: string };
  /** Resolves when `pattern` appears on the stream (default stderr); rejects if it exits first. */
  waitFor(pattern: RegExp, stream?: 'stdout' | 'stderr'): Promise<RegExpExecArray>;
  /** Its exit code (or the signal that ended it). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts the real `wharf` command in `cwd` without waiting for it, for tests that talk to it
 * while it runs (send it signals, approve its gates).
 *
 * @example
 * ```ts
 * const run = spawnWharf(['run', 'swarm.yaml'], dir);
 * await run.waitFor(/started (\S+)/);
 * run.child.kill('SIGINT');
 * ```
 */
export function spawnWharf(args: string[], cwd: string): SpawnedWharf {
  const child = spawn(process.execPath, [wharfCliPath, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const text = { stdout: '', stderr: '' };
  const changed = new EventEmitter();
  let ended = false;
  for (const stream of ['stdout', 'stderr'] as const) {
    child[stream].on('data', (chunk: Buffer) => {
      text[stream] += chunk.toString('utf8');
      changed.emit('data');
    });
  }
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    // 'close': the process exited and its output is all read.
    child.once('close', (code, signal) => {
      ended = true;
      changed.emit('exit');
      resolve({ code, signal });
    });
  });
  return {
    child,
    output: () => ({ ...text }),
    exited,
    waitFor: (pattern, stream = 'stderr') =>
      new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(text[stream]);
          if (match === null) return;
          changed.off('data', check).off('exit', gone);
          resolve(match);
        };
        const gone = () => {
          check();
          changed.off('data', check);
          reject(new Error(`wharf exited before printing ${pattern}:\n${text.stdout}\n${text.stderr}`));
        };
        changed.on('data', check).once('exit', gone);
        if (ended) gone();
        else check();
      }),
  };
}
