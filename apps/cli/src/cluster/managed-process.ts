import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * How to run one long-lived process of the cluster.
 *
 * @example
 * ```ts
 * const spec: ProcessSpec = { name: 's3', command: 'versitygw', args: ['posix', '/data'], env: {} };
 * ```
 */
export interface ProcessSpec {
  /** Its name in the topology (the compose service's). */
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  /** Its whole environment. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** Run as this user and group (PostgreSQL, which refuses root). */
  readonly uid?: number;
  readonly gid?: number;
  /** The signal that stops it gracefully: SIGTERM, or PostgreSQL's fast shutdown, SIGINT. */
  readonly stopSignal?: NodeJS.Signals;
  /** How long `stop` waits after that signal before SIGKILL. Default 45 s (compose's worker grace). */
  readonly stopTimeoutMs?: number;
}

/**
 * What `status` reports of a process.
 *
 * @example
 * ```ts
 * const state: ProcessState = { name: 'temporal', pid: 4242, running: true, log: '.wharf-cluster/temporal/log' };
 * ```
 */
export interface ProcessState {
  readonly name: string;
  /** The recorded pid, when one is recorded. */
  readonly pid: number | undefined;
  /** True when that pid is alive and still runs the recorded command. */
  readonly running: boolean;
  readonly log: string;
}

/**
 * One process of the cluster, started detached (it outlives the command that started it) with
 * its output appended to `<dir>/<name>/log` and its pid in `<dir>/<name>/pid`: another `wharf
 * cluster` command (`status`, `down`) or a test finds it there. A recorded pid counts as running
 * only while `/proc/<pid>/cmdline` still names the recorded command, so a reused pid is not taken
 * for it.
 *
 * @example
 * ```ts
 * const s3 = new ManagedProcess('.wharf-cluster', spec);
 * await s3.start();
 * await s3.stop();
 * ```
 */
export class ManagedProcess {
  readonly folder: string;
  readonly logPath: string;
  private readonly pidPath: string;

  constructor(
    dir: string,
    readonly spec: ProcessSpec,
  ) {
    this.folder = join(dir, spec.name);
    this.logPath = join(this.folder, 'log');
    this.pidPath = join(this.folder, 'pid');
  }

  get name(): string {
    return this.spec.name;
  }

  /** Starts it unless it runs; resolves with its pid once spawned (readiness is the caller's). */
  async start(): Promise<number> {
    const running = await this.runningPid();
    if (running !== undefined) return running;
    await mkdir(this.folder, { recursive: true });
    const log = openSync(this.logPath, 'a');
    try {
      const child = spawn(this.spec.command, [...this.spec.args], {
        env: { ...this.spec.env },
        cwd: this.spec.cwd ?? this.folder,
        detached: true,
        stdio: ['ignore', log, log],
        ...(this.spec.uid === undefined ? {} : { uid: this.spec.uid }),
        ...(this.spec.gid === undefined ? {} : { gid: this.spec.gid }),
      });
      const pid = await new Promise<number>((resolve, reject) => {
        child.once('spawn', () => resolve(child.pid as number));
        child.once('error', reject);
      });
      child.unref();
      await writeFile(this.pidPath, `${pid}\n${this.spec.command}\n`);
      return pid;
    } finally {
      closeSync(log);
    }
  }

  /** Its pid when it runs, else undefined. */
  async runningPid(): Promise<number | undefined> {
    let recorded: string;
    try {
      recorded = await readFile(this.pidPath, 'utf8');
    } catch {
      return undefined;
    }
    const [pidText, command] = recorded.split('\n');
    const pid = Number(pidText);
    if (!Number.isInteger(pid) || pid <= 0) return undefined;
    return (await runsCommand(pid, command ?? '')) ? pid : undefined;
  }

  /** Its state, for `status`. */
  async state(): Promise<ProcessState> {
    const pid = await this.runningPid();
    let recorded: number | undefined = pid;
    if (recorded === undefined) {
      const text = await readFile(this.pidPath, 'utf8').catch(() => '');
      recorded = Number(text.split('\n')[0]) || undefined;
    }
    return { name: this.name, pid: recorded, running: pid !== undefined, log: this.logPath };
  }

  /** Sends `signal` (default its stop signal), waits for it to exit, SIGKILLs it after the timeout. */
  async stop(signal: NodeJS.Signals = this.spec.stopSignal ?? 'SIGTERM'): Promise<void> {
    const pid = await this.runningPid();
    if (pid === undefined) return;
    signalProcess(pid, signal);
    const deadline = Date.now() + (this.spec.stopTimeoutMs ?? 45_000);
    while (await runsCommand(pid, this.spec.command)) {
      if (Date.now() > deadline) {
        signalProcess(pid, 'SIGKILL');
        await waitGone(pid, this.spec.command, 10_000);
        break;
      }
      await sleep(100);
    }
    await rm(this.pidPath, { force: true });
  }

  /** SIGKILLs it (a crash: no shutdown of its own) and waits until it is gone. */
  async kill(): Promise<void> {
    const pid = await this.runningPid();
    if (pid === undefined) return;
    signalProcess(pid, 'SIGKILL');
    await waitGone(pid, this.spec.command, 10_000);
    await rm(this.pidPath, { force: true });
  }
}

function signalProcess(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone.
  }
}

async function waitGone(pid: number, command: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await runsCommand(pid, command)) && Date.now() < deadline) await sleep(50);
}

/** True when `pid` is alive (not a zombie) and its command line starts with `command`. */
async function runsCommand(pid: number, command: string): Promise<boolean> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // The state follows the parenthesized command name: Z is a zombie, X dead.
    const processState = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    if (processState === 'Z' || processState === 'X') return false;
    const argv0 = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0')[0] ?? '';
    return argv0 === command;
  } catch {
    return false;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
