import { homedir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import { spawnEnv, unixSocketUrl } from '@wharf/output-store/client';
import { Sandbox, type SandboxDetection, type SandboxPolicy } from '@wharf/stdio-limits';
import type { SandboxSettings } from '@wharf/swarm';
import { WharfOrchestratorError } from '@wharf/swarm';
import { z } from 'zod';
import { wharfInstallPaths } from './wharf-install.js';

/**
 * Credential files and directories of the worker's home, hidden from every sandbox: cloud,
 * SSH, GPG, Kubernetes, Docker and registry credentials, `.netrc`, `.pgpass`, Temporal's
 * config file (API keys, TLS keys).
 */
export const HOME_CREDENTIALS = [
  '.aws',
  '.azure',
  '.config/gcloud',
  '.config/temporalio',
  '.docker',
  '.git-credentials',
  '.gnupg',
  '.kube',
  '.netrc',
  '.npmrc',
  '.pgpass',
  '.ssh',
];

/** Where a sandboxed process finds the intake's Unix socket. */
export const SANDBOX_INTAKE_SOCKET = '/run/wharf/intake.sock';

/**
 * How a worker sandboxes the processes it starts for swarms (scripts, the `shell` tool, stdio
 * MCP servers), and the most a task may ask for.
 *
 * @example
 * ```ts
 * const options: WorkerSandboxOptions = { mode: 'required', network: 'none', maxMemoryBytes: 4 * 1024 ** 3 };
 * ```
 */
export interface WorkerSandboxOptions {
  /**
   * `auto` (default): sandbox where the machine allows it, else run unconfined and say why;
   * `required`: refuse to start without a sandbox; `off`: never sandbox.
   */
  mode?: 'auto' | 'required' | 'off';
  /** Ceiling: may a task's `sandbox.network` be `allow`? Default `allow`. */
  network?: 'none' | 'allow';
  /** Ceiling and default of `max_memory_bytes`. */
  maxMemoryBytes?: number;
  /** Ceiling and default of `max_processes`. */
  maxProcesses?: number;
  /** Ceiling and default of `max_cpu_seconds`. */
  maxCpuSeconds?: number;
  /** Paths hidden from every sandbox: the data directory, by default the work directory. */
  hidden?: readonly string[];
  /**
   * Where the programs sandboxed processes run are installed, shown read-only also when they
   * lie under `/tmp` or `/run` (`SandboxPolicy.programs`). Default: {@link wharfInstallPaths}
   * (Wharf's own install, the `node` executable's directory).
   */
  programs?: readonly string[];
  /** The intake's Unix socket on the host, bound in at {@link SANDBOX_INTAKE_SOCKET}. */
  intakeSocket?: string;
  /** What `Sandbox.detect()` found (default: detected now). */
  detection?: SandboxDetection;
}

/** Whether the worker's processes run sandboxed, and why not when they do not. */
export interface SandboxStatus {
  state: 'on' | 'off' | 'unavailable';
  reason?: string;
}

const positive = z.coerce.number().int().positive().optional();
const envSchema = z.object({
  WHARF_SANDBOX: z.enum(['auto', 'required', 'off']).optional(),
  WHARF_SANDBOX_NETWORK: z.enum(['none', 'allow']).optional(),
  WHARF_SANDBOX_MAX_MEMORY_BYTES: positive,
  WHARF_SANDBOX_MAX_PROCESSES: positive,
  WHARF_SANDBOX_MAX_CPU_SECONDS: positive,
  /** Paths hidden from every sandbox, separated by `:`. */
  WHARF_SANDBOX_HIDE: z.string().optional(),
});

/**
 * The sandbox of one worker: detected once, with a ceiling over every task's `sandbox` block.
 * It turns a task's settings into the `captureProcess` option that confines its processes:
 * the task's work directory writable, the data directory, the work directories of the other
 * tasks running on this worker and the credentials of the worker's home ({@link HOME_CREDENTIALS})
 * hidden, the task's own input files readable, Wharf's own install readable also where it lies
 * under `/tmp` (so that `wharf emit` runs there), the intake reachable over its Unix socket only.
 *
 * @example
 * ```ts
 * const sandbox = WorkerSandbox.create({ ...WorkerSandbox.optionsFromEnv(process.env), hidden: ['.wharf'] });
 * if (sandbox.status.state !== 'on') console.warn(`scripts run unconfined: ${sandbox.status.reason}`);
 * await captureProcess('sh', { args: ['-c', script], ...sandbox.captureOption(settings, { workdir }) });
 * ```
 */
export class WorkerSandbox {
  readonly status: SandboxStatus;
  readonly #sandbox: Sandbox | undefined;
  readonly #options: WorkerSandboxOptions;
  readonly #active = new Map<string, number>();

  private constructor(options: WorkerSandboxOptions, sandbox: Sandbox | undefined, status: SandboxStatus) {
    this.#options = options;
    this.#sandbox = sandbox;
    this.status = status;
  }

  /**
   * Detects the sandbox (unless `mode: 'off'`). With `mode: 'required'` and none to be had, a
   * `SANDBOX_UNAVAILABLE` error naming why.
   */
  static create(options: WorkerSandboxOptions = {}): WorkerSandbox {
    const mode = options.mode ?? 'auto';
    if (mode === 'off')
      return new WorkerSandbox(options, undefined, { state: 'off', reason: 'WHARF_SANDBOX=off' });
    const detection = options.detection ?? Sandbox.detect();
    if (detection.sandbox !== undefined) {
      const programs = options.programs ?? wharfInstallPaths();
      return new WorkerSandbox({ ...options, programs }, detection.sandbox, { state: 'on' });
    }
    if (mode === 'required') {
      throw new WharfOrchestratorError(
        'SANDBOX_UNAVAILABLE',
        `the worker must sandbox scripts (WHARF_SANDBOX=required) but cannot: ${detection.reason}`,
      );
    }
    return new WorkerSandbox(options, undefined, { state: 'unavailable', reason: detection.reason });
  }

  /**
   * The options the worker's environment gives: `WHARF_SANDBOX` (`auto`, `required`, `off`),
   * `WHARF_SANDBOX_NETWORK` (`none` forbids tasks the network), `WHARF_SANDBOX_MAX_MEMORY_BYTES`,
   * `WHARF_SANDBOX_MAX_PROCESSES`, `WHARF_SANDBOX_MAX_CPU_SECONDS` and `WHARF_SANDBOX_HIDE`
   * (paths hidden from every sandbox, `:`-separated). A bad value is an `INVALID_ENV` error.
   */
  static optionsFromEnv(env: Readonly<Record<string, string | undefined>>): WorkerSandboxOptions {
    const parsed = envSchema.safeParse(env);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new WharfOrchestratorError('INVALID_ENV', `${String(issue?.path[0])}: ${issue?.message}`);
    }
    const values = parsed.data;
    return {
      ...(values.WHARF_SANDBOX === undefined ? {} : { mode: values.WHARF_SANDBOX }),
      ...(values.WHARF_SANDBOX_NETWORK === undefined ? {} : { network: values.WHARF_SANDBOX_NETWORK }),
      ...(values.WHARF_SANDBOX_MAX_MEMORY_BYTES === undefined
        ? {}
        : { maxMemoryBytes: values.WHARF_SANDBOX_MAX_MEMORY_BYTES }),
      ...(values.WHARF_SANDBOX_MAX_PROCESSES === undefined
        ? {}
        : { maxProcesses: values.WHARF_SANDBOX_MAX_PROCESSES }),
      ...(values.WHARF_SANDBOX_MAX_CPU_SECONDS === undefined
        ? {}
        : { maxCpuSeconds: values.WHARF_SANDBOX_MAX_CPU_SECONDS }),
      ...(values.WHARF_SANDBOX_HIDE === undefined
        ? {}
        : { hidden: values.WHARF_SANDBOX_HIDE.split(':').filter((path) => path !== '') }),
    };
  }

  /** One line for logs and the worker's identity: `sandbox on`, or `sandbox unavailable: <why>`. */
  describe(): string {
    return this.status.reason === undefined
      ? `sandbox ${this.status.state}`
      : `sandbox ${this.status.state}: ${this.status.reason}`;
  }

  /** The same sandbox with more options (the intake socket, more hidden paths). */
  with(options: WorkerSandboxOptions): WorkerSandbox {
    return new WorkerSandbox(
      { ...this.#options, ...options, hidden: [...(this.#options.hidden ?? []), ...(options.hidden ?? [])] },
      this.#sandbox,
      this.status,
    );
  }

  /** Marks `workdir` in use while `run` runs: other tasks' sandboxes hide it meanwhile. */
  async using<TResult>(workdir: string, run: () => Promise<TResult>): Promise<TResult> {
    const path = resolve(workdir);
    this.#active.set(path, (this.#active.get(path) ?? 0) + 1);
    try {
      return await run();
    } finally {
      const left = (this.#active.get(path) ?? 1) - 1;
      if (left === 0) this.#active.delete(path);
      else this.#active.set(path, left);
    }
  }

  /**
   * The `captureProcess` option confining a task's process (none when the worker has no
   * sandbox), and the environment it needs in there (the intake's socket URL). A setting above
   * the worker's ceiling is a `SANDBOX_NOT_ALLOWED` error.
   */
  captureOption(
    settings: SandboxSettings | undefined,
    place: { workdir: string; readable?: readonly string[] },
  ): { sandbox?: { sandbox: Sandbox; policy: SandboxPolicy }; env: Record<string, string> } {
    const policy = this.policy(settings, place);
    if (this.#sandbox === undefined || policy === undefined) return { env: {} };
    const socket = this.#options.intakeSocket;
    return {
      sandbox: { sandbox: this.#sandbox, policy },
      env: socket === undefined ? {} : { [spawnEnv.outputUrl]: unixSocketUrl(SANDBOX_INTAKE_SOCKET) },
    };
  }

  /** The command line of a long-lived process (an MCP server) in the sandbox, or as it is without one. */
  wrap(
    command: string,
    args: readonly string[],
    settings: SandboxSettings | undefined,
    workdir: string,
  ): [string, string[]] {
    const policy = this.policy(settings, { workdir });
    if (this.#sandbox === undefined || policy === undefined) return [command, [...args]];
    return this.#sandbox.wrap(command, args, policy, workdir);
  }

  private policy(
    settings: SandboxSettings | undefined,
    place: { workdir: string; readable?: readonly string[] },
  ): SandboxPolicy | undefined {
    if (this.#sandbox === undefined) return undefined;
    const options = this.#options;
    if (settings?.network === 'allow' && options.network === 'none') {
      throw new WharfOrchestratorError(
        'SANDBOX_NOT_ALLOWED',
        'sandbox.network: allow is more than this worker allows (WHARF_SANDBOX_NETWORK=none)',
      );
    }
    const workdir = resolve(place.workdir);
    const others = [...this.#active.keys()].filter((path) => path !== workdir && !inside(workdir, path));
    const socket = options.intakeSocket;
    return {
      network: settings?.network ?? 'none',
      root: settings?.filesystem?.root ?? 'read-only',
      writable: [workdir],
      readable: [...(settings?.filesystem?.read_only ?? []), ...(place.readable ?? [])],
      programs: options.programs ?? [],
      hidden: [
        ...HOME_CREDENTIALS.map((path) => join(homedir(), path)),
        ...(options.hidden ?? []),
        ...others,
        ...(settings?.filesystem?.hide ?? []),
      ],
      ...(socket === undefined ? {} : { sockets: [{ source: socket, target: SANDBOX_INTAKE_SOCKET }] }),
      ...limit('max_memory_bytes', 'maxMemoryBytes', settings?.max_memory_bytes, options.maxMemoryBytes),
      ...limit('max_processes', 'maxProcesses', settings?.max_processes, options.maxProcesses),
      ...limit('max_cpu_seconds', 'maxCpuSeconds', settings?.max_cpu_seconds, options.maxCpuSeconds),
    };
  }
}

/** A task's limit, refused above the worker's ceiling; the ceiling when the task sets none. */
function limit<TKey extends 'maxMemoryBytes' | 'maxProcesses' | 'maxCpuSeconds'>(
  setting: string,
  key: TKey,
  asked: number | undefined,
  ceiling: number | undefined,
): Partial<Record<TKey, number>> {
  if (asked !== undefined && ceiling !== undefined && asked > ceiling) {
    throw new WharfOrchestratorError(
      'SANDBOX_NOT_ALLOWED',
      `sandbox.${setting}: ${asked} is more than this worker allows (${ceiling})`,
    );
  }
  const value = asked ?? ceiling;
  return value === undefined ? {} : ({ [key]: value } as Partial<Record<TKey, number>>);
}

/** Whether `path` lies inside `directory` (or is it). */
function inside(path: string, directory: string): boolean {
  return path === directory || path.startsWith(directory.endsWith(sep) ? directory : `${directory}${sep}`);
}
