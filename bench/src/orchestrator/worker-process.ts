import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';

/** Where and how the worker process runs. */
export interface WorkerProcessOptions {
  /** The Temporal frontend, `host:port`. */
  address: string;
  /** Its namespace (default: the worker's own default, `default`). */
  namespace?: string;
  /** Its data directory: `outputs.db`, `artifacts/`, `work/`. */
  dataDir: string;
  taskQueue: string;
  /** Activity slots (`WHARF_MAX_CONCURRENT`). */
  concurrency: number;
  /** A workflow bundle cache already holding the bundle (`WHARF_CACHE_DIR`), so the worker loads it. */
  cacheDir: string;
  /** Its working directory, the scripts' too (default: this process's). */
  cwd?: string;
  /** More environment variables (e.g. `WHARF_SANDBOX`). */
  env?: Record<string, string>;
}

/** A running worker process and its memory, read from `/proc`. */
export interface WorkerProcess {
  readonly pid: number;
  /** What its `worker-start` line says of the sandbox (e.g. `sandbox on`). */
  readonly sandbox: string;
  /** Resident set size now, in bytes. */
  rss(): Promise<number>;
  /** The largest resident set size of the process so far (the kernel's high-water mark), in bytes. */
  peakRss(): Promise<number>;
  /**
   * CPU seconds (user + system) the process has used so far, and of it its main thread (the
   * event loop; the rest is the workflow thread, the SDK's core threads and libuv's pool). Time
   * on a CPU only, so a loaded machine slows it less than wall time: read before and after a run.
   */
  cpuSeconds(): Promise<{ process: number; mainThread: number }>;
  /** SIGTERM, then waits for the process to end (its running scripts get no grace). */
  stop(): Promise<void>;
  /** SIGKILL, then waits for the process to end: a crash, nothing flushed or told. */
  kill(): Promise<void>;
}

/**
 * Starts the shipped worker (`@wharf/worker`'s `main.js`, with the Node flags of its `#!` line,
 * as its `wharf-worker` bin runs it) in a process of its own, so its memory is its own and not
 * the benchmark's. Resolves once it logs `worker-start` (polling its task queue).
 *
 * @example
 * ```ts
 * const worker = await startWorkerProcess({ address, dataDir, taskQueue, concurrency: 32, cacheDir });
 * // ... run swarms on taskQueue
 * console.log(`peak RSS ${(await worker.peakRss()) / 2 ** 20} MiB`);
 * await worker.stop();
 * ```
 */
export async function startWorkerProcess(options: WorkerProcessOptions): Promise<WorkerProcess> {
  const main = join(
    dirname(createRequire(import.meta.url).resolve('@wharf/worker/package.json')),
    'dist/main.js',
  );
  const child = spawn(process.execPath, [...shebangNodeFlags(main), ...cpuProfileFlags(), main], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      TEMPORAL_ADDRESS: options.address,
      ...(options.namespace === undefined ? {} : { TEMPORAL_NAMESPACE: options.namespace }),
      WHARF_DATA_DIR: options.dataDir,
      WHARF_TASK_QUEUE: options.taskQueue,
      WHARF_MAX_CONCURRENT: String(options.concurrency),
      WHARF_CACHE_DIR: options.cacheDir,
      WHARF_SHUTDOWN_GRACE_MS: '0',
      LOG_LEVEL: 'info',
      ...options.env,
    },
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error('the worker process did not start');
  const stderr: string[] = [];
  child.stderr?.setEncoding('utf8').on('data', (text: string) => {
    if (stderr.length < 50) stderr.push(text);
  });
  const sandbox = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout as NonNullable<ChildProcess['stdout']> });
    const failed = (code: number | null) =>
      reject(
        new Error(
          `the worker process exited (${code}) before it started: ${stderr.join('').slice(0, 2_000)}`,
        ),
      );
    child.once('exit', failed);
    lines.on('line', (line) => {
      if (!line.includes('"worker-start"')) return;
      child.off('exit', failed);
      resolve(sandboxOf(line));
    });
  });
  const status = async (field: 'VmRSS' | 'VmHWM') => {
    const text = await readFile(`/proc/${pid}/status`, 'utf8');
    const kib = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1];
    if (kib === undefined) throw new Error(`/proc/${pid}/status has no ${field}`);
    return Number(kib) * 1024;
  };
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    await exited;
  };
  const ticks = async (path: string) => {
    const text = await readFile(path, 'utf8');
    // After the parenthesised command name: field 14 (utime) and 15 (stime) are the 12th and 13th.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  };
  return {
    pid,
    sandbox,
    cpuSeconds: async () => ({
      process: await ticks(`/proc/${pid}/stat`),
      mainThread: await ticks(`/proc/${pid}/task/${pid}/stat`),
    }),
    rss: () => status('VmRSS'),
    peakRss: () => status('VmHWM'),
    stop: () => end('SIGTERM'),
    kill: () => end('SIGKILL'),
  };
}

/** Clock ticks per second of `/proc/<pid>/stat`'s times (`getconf CLK_TCK`: 100 on Linux). */
const CLOCK_TICKS = 100;

/** The `sandbox` field of a JSON log line, or `unknown`. */
function sandboxOf(line: string): string {
  try {
    const sandbox = (JSON.parse(line) as { sandbox?: unknown }).sandbox;
    return typeof sandbox === 'string' ? sandbox : 'unknown';
  } catch {
    return 'unknown';
  }
}

/**
 * `--cpu-prof` into the directory `WHARF_BENCH_WORKER_CPU_PROF` names, when it is set: the worker
 * writes a profile of its main thread (and one per worker thread) when it stops, to read where
 * its time per instance goes (`node bench/dist/cpu-profile.js <dir>`).
 */
function cpuProfileFlags(): string[] {
  const dir = process.env.WHARF_BENCH_WORKER_CPU_PROF?.trim();
  return dir === undefined || dir === '' ? [] : ['--cpu-prof', `--cpu-prof-dir=${dir}`];
}

/** The Node flags a script's `#!/usr/bin/env -S node …` line starts it with (none for plain `node`). */
function shebangNodeFlags(file: string): string[] {
  const first = readFileSync(file, 'utf8').split('\n', 1)[0] ?? '';
  const flags = /^#!\/usr\/bin\/env -S node\s+(.*)$/.exec(first)?.[1];
  return flags === undefined ? [] : flags.trim().split(/\s+/);
}
