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

/** Options of {@link runWharf} and {@link startWharf}. */
export interface WharfCliOptions {
  /** Default 120 s. */
  timeoutMs?: number;
  /** The process's whole environment. Default: this process's. */
  env?: NodeJS.ProcessEnv;
}

/**
 * Runs the real `wharf` command in `cwd` (with `env`, default this process's) and returns its
 * exit code and output, whatever the code.
 *
 * @example
 * ```ts
 * const run = await runWharf(['validate', 'swarm.yaml'], dir);
 * ```
 */
export async function runWharf(
  args: string[],
  cwd: string,
  options: WharfCliOptions = {},
): Promise<WharfCliRun> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [wharfCliPath, ...args], {
      cwd,
      timeout: options.timeoutMs ?? 120_000,
      maxBuffer: 64 * 1024 * 1024,
      ...(options.env === undefined ? {} : { env: options.env }),
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** A `wharf` process still running: its output so far, and how it ended. */
export interface RunningWharf {
  /** The stderr written so far. */
  stderr(): string;
  done: Promise<WharfCliRun>;
}

/**
 * Starts the real `wharf` command in `cwd` without waiting for it (a `run` whose approval gates
 * the test answers); `done` resolves with its exit code and output, killed past the timeout.
 *
 * @example
 * ```ts
 * const running = startWharf(['run', 'swarm.yaml'], dir);
 * const { code } = await running.done;
 * ```
 */
export function startWharf(args: string[], cwd: string, options: WharfCliOptions = {}): RunningWharf {
  const child = spawn(process.execPath, [wharfCliPath, ...args], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.env === undefined ? {} : { env: options.env }),
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
  const done = new Promise<WharfCliRun>((resolve) => {
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? (signal === null ? -1 : 128), stdout, stderr });
    });
  });
  return { stderr: () => stderr, done };
}

/**
 * This process's environment with `changes` applied: a variable set to `undefined` is left out.
 *
 * @example
 * ```ts
 * await runWharf(['outputs', 'list'], dir, { env: envWith({ WHARF_STORE: undefined }) });
 * ```
 */
export function envWith(changes: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...changes };
  for (const [name, value] of Object.entries(changes)) if (value === undefined) delete env[name];
  return env;
}

/**
 * This process's environment without any model provider's key or Wharf model setting: what a
 * machine with no provider configured looks like.
 *
 * @example
 * ```ts
 * await runWharf(['run', 'swarm.yaml', '--model', 'echo'], dir, { env: envWithoutModels() });
 * ```
 */
export function envWithoutModels(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) {
    if (/^(OPENAI|ANTHROPIC|OPENAI_COMPATIBLE)_/.test(name) || /^WHARF_(MODEL|SUMMARIZER)$/.test(name)) {
      delete env[name];
    }
  }
  return { ...env, ...extra };
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
export function spawnWharf(
  args: string[],
  cwd: string,
  options: { env?: NodeJS.ProcessEnv } = {},
): SpawnedWharf {
  const child = spawn(process.execPath, [wharfCliPath, ...args], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.env === undefined ? {} : { env: options.env }),
  });
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
