import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { type Pump, pumpInto } from './capture-stream.js';
import { allocateCombined } from './combined-budget.js';
import { type ResolvedLimits, resolveLimits } from './limits.js';
import { ProcessCgroup } from './process-cgroup.js';
import { processGroupAlive, terminateProcessGroup } from './process-group.js';
import { PROCESS_GROUP_TOKEN_ENV, type ProcessGroupRegistry } from './process-group-registry.js';
import { directSpawner, type ProcessSpawner, type SpawnedProcess } from './process-spawner.js';
import { resolveExecutable } from './resolve-executable.js';
import type { Sandbox } from './sandbox.js';
import type { SandboxPolicy } from './sandbox-policy.js';
import type { LimitsInput } from './schemas.js';
import { StdioLimitsError } from './stdio-limits-error.js';
import { StreamAccumulator, type StreamCapture, type StreamSpillOptions } from './stream-accumulator.js';

/** Bytes captured so far, reported for heartbeats. */
export interface CaptureProgress {
  stdoutBytes: number;
  stderrBytes: number;
  elapsedMs: number;
}

/** Options of {@link captureProcess}. */
export interface CaptureProcessOptions {
  args?: readonly string[];
  /** Run `command` through the shell (`/bin/sh -c`). */
  shell?: boolean;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Written to the child's stdin, which is then closed. Without it stdin is ignored. */
  input?: string | Uint8Array;
  /** Limits as resolved by `resolveLimits`, or a partial block (defaults fill the rest). */
  limits?: ResolvedLimits | LimitsInput;
  /** Base name of spill files in `external_storage_dir` (default: a random id). */
  spillName?: string;
  /** Kill after this long (overrides `limits.timeout_ms`). */
  timeoutMs?: number;
  /** Signal sent on timeout, overflow or abort (default SIGTERM); SIGKILL follows after `killGraceMs`. */
  killSignal?: NodeJS.Signals;
  killGraceMs?: number;
  /**
   * Run the child in its own process group and signal the whole group (default true on
   * POSIX). Whatever of the group still runs when the child has exited and its output has
   * ended (or the drain timeout passed) is ended too: SIGTERM, then SIGKILL after
   * `killGraceMs`. Processes that left the group (`setsid`) are reached through `cgroup`.
   */
  processGroup?: boolean;
  /**
   * Also run the child in a cgroup of its own where the worker may create cgroups (Linux,
   * cgroup v2; default true, needs `processGroup`): then whatever the child starts, even with
   * `setsid` or a double fork, is signalled with it and ended when the capture ends. Where
   * cgroups are not available, processes that leave the process group are out of reach.
   */
  cgroup?: boolean;
  /**
   * Records the group while it runs, so that a restarted owner can end it if this process
   * dies without cleaning up (see {@link ProcessGroupRegistry}). Needs `processGroup`.
   */
  registry?: ProcessGroupRegistry;
  /**
   * Run the command in this {@link Sandbox} under `policy` (`cwd` must be visible inside it,
   * e.g. among `policy.writable`). Then everything it starts ends when it exits, cgroup or not;
   * a kill signal ends the whole sandbox at once (its processes get SIGKILL).
   */
  sandbox?: { sandbox: Sandbox; policy: SandboxPolicy };
  signal?: AbortSignal;
  /**
   * Let a stream that passes 16 MiB be read on by the stream reader, a small compiled helper doing
   * blocking reads outside Node's event loop (default true, where the package's build found a C
   * compiler): the same capture, at about the speed of `cat`. Without it every byte goes through
   * Node's stream path.
   */
  streamReader?: boolean;
  /**
   * What starts the process: {@link directSpawner} (default, a fork of this process) or a
   * {@link SpawnServer}, whose small helper process forks instead, sparing a big process the
   * cost of copying itself for every child.
   */
  spawner?: ProcessSpawner;
  /** Called every `progressIntervalMs` (default 1000) while the process runs, and once at the end. */
  onProgress?: (progress: CaptureProgress) => void;
  progressIntervalMs?: number;
}

/** Why Wharf killed the process, if it did. */
export type KillReason = 'timeout' | 'overflow' | 'abort';

/** Everything known about a captured process run. */
export interface ProcessCapture {
  pid: number | undefined;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  killedBy: KillReason | null;
  /** True when the child exited but something (a grandchild) kept a pipe open past the drain timeout. */
  drainTimedOut: boolean;
  /** True when members of the child's process group outlived it and were killed. */
  killedStrays: boolean;
  durationMs: number;
  stdout: StreamCapture;
  stderr: StreamCapture;
  combined: { limit: number; totalBytes: number; retainedBytes: number; omittedBytes: number };
}

/**
 * Runs a process and captures stdout and stderr under hard limits: fixed memory whatever it
 * prints, pipes always drained so the child never blocks, optional spill of the full streams to
 * disk (gzip, hard cap, sha256), timeouts, kill on overflow and a drain timeout for grandchildren
 * that keep the pipes open.
 *
 * @example
 * ```ts
 * const result = await captureProcess('sh', {
 *   args: ['-c', 'seq 1 1000000'],
 *   limits: { max_stdout_bytes: 4096, external_storage_dir: '.wharf/outputs' },
 * });
 * result.stdout.text; // '--- [6884811 bytes truncated] ---\n…999999\n1000000\n\n--- Output (showing last … bytes of 6888896) ---'
 * result.stdout.spill?.path; // '.wharf/outputs/<id>.stdout.log', the whole output
 * ```
 */
export async function captureProcess(
  command: string,
  options: CaptureProcessOptions = {},
): Promise<ProcessCapture> {
  const limits = resolveLimits(undefined, { limits: options.limits as LimitsInput });
  const started = performance.now();
  const spillName = options.spillName ?? `${Date.now()}-${randomUUID()}`;
  const spillFor = (stream: 'stdout' | 'stderr'): StreamSpillOptions | undefined =>
    limits.external_storage_dir === undefined
      ? undefined
      : {
          path: join(
            limits.external_storage_dir,
            `${spillName}.${stream}.log${limits.compress_external ? '.gz' : ''}`,
          ),
          compress: limits.compress_external,
          maxBytes: limits.max_external_bytes,
          threshold: limits.external_storage_threshold,
        };
  const stdout = new StreamAccumulator({
    maxBytes: limits.max_stdout_bytes,
    strategy: limits.truncation_strategy,
    spill: spillFor('stdout'),
  });
  const stderr = new StreamAccumulator({
    maxBytes: limits.max_stderr_bytes,
    strategy: limits.truncation_strategy,
    spill: spillFor('stderr'),
  });
  const group = (options.processGroup ?? true) && process.platform !== 'win32';
  const registry = group ? options.registry : undefined;
  const [plainFile, plainArgs]: [string, string[]] = options.shell
    ? ['/bin/sh', ['-c', [command, ...(options.args ?? [])].join(' ')]]
    : [command, [...(options.args ?? [])]];
  const [spawnFile, spawnArgs] =
    options.sandbox === undefined
      ? [plainFile, plainArgs]
      : options.sandbox.sandbox.wrap(plainFile, plainArgs, options.sandbox.policy, options.cwd);
  // A command that cannot be found is spawned as it is, so that Node reports it (SPAWN_FAILED).
  const executable =
    group && options.cgroup !== false
      ? resolveExecutable(spawnFile, { env: options.env, cwd: options.cwd })
      : undefined;
  const cgroup = executable === undefined ? undefined : ProcessCgroup.create();
  const token = registry === undefined ? undefined : randomUUID();
  const env =
    token === undefined ? options.env : { ...(options.env ?? process.env), [PROCESS_GROUP_TOKEN_ENV]: token };

  // Recorded before the spawn: an owner killed before `add` below still leaves its record.
  if (registry !== undefined && token !== undefined) registry.reserve(token, cgroup?.path);
  let child: SpawnedProcess;
  try {
    const [file, args] = cgroup ? cgroup.wrap(executable ?? spawnFile, spawnArgs) : [spawnFile, spawnArgs];
    child = await (options.spawner ?? directSpawner).spawn({
      file,
      args,
      cwd: options.cwd,
      env: env ?? process.env,
      detached: group,
      stdin: options.input !== undefined,
      cgroup: cgroup?.path,
    });
  } catch (error) {
    await cgroup?.remove();
    if (registry !== undefined && token !== undefined) registry.release(token);
    // The spawner's own reasons (a request too large, a helper that died with it) keep their code.
    if (StdioLimitsError.isInstance(error)) throw error;
    throw new StdioLimitsError('SPAWN_FAILED', `could not start "${command}": ${(error as Error).message}`, {
      cause: error,
    });
  }
  const { pid } = child;
  if (registry !== undefined) registry.add(pid, token, cgroup?.path);
  let killedBy: KillReason | null = null;
  let exited = false;
  let drainTimedOut = false;
  const timers: NodeJS.Timeout[] = [];
  const later = (ms: number, action: () => void) => timers.push(setTimeout(action, ms));

  const sendSignal = (signal: NodeJS.Signals) => {
    if (exited) return;
    try {
      process.kill(group ? -pid : pid, signal);
    } catch {
      // already gone
    }
    cgroup?.signal(signal);
  };
  const kill = (reason: KillReason) => {
    if (killedBy !== null || exited) return;
    killedBy = reason;
    sendSignal(options.killSignal ?? 'SIGTERM');
    later(options.killGraceMs ?? 2_000, () => sendSignal('SIGKILL'));
  };
  const checkOverflow = () => {
    if (!limits.kill_on_overflow) return;
    const over =
      stdout.totalBytes > limits.max_stdout_bytes ||
      stderr.totalBytes > limits.max_stderr_bytes ||
      stdout.totalBytes + stderr.totalBytes > limits.max_combined_bytes;
    if (over) kill('overflow');
  };
  const progress = (): CaptureProgress => ({
    stdoutBytes: stdout.totalBytes,
    stderrBytes: stderr.totalBytes,
    elapsedMs: performance.now() - started,
  });

  const handOver = { handOver: options.streamReader !== false };
  const pumps: Pump[] = [
    pumpInto(child.stdout, stdout, checkOverflow, handOver),
    pumpInto(child.stderr, stderr, checkOverflow, handOver),
  ];
  if (child.stdin && options.input !== undefined) {
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input);
  }

  const timeoutMs = options.timeoutMs ?? limits.timeout_ms;
  if (timeoutMs !== undefined) later(timeoutMs, () => kill('timeout'));
  const onAbort = () => kill('abort');
  if (options.signal?.aborted) onAbort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const ticker = options.onProgress
    ? setInterval(() => options.onProgress?.(progress()), options.progressIntervalMs ?? 1_000)
    : undefined;
  const cleanup = () => {
    for (const timer of timers) clearTimeout(timer);
    if (ticker) clearInterval(ticker);
    options.signal?.removeEventListener('abort', onAbort);
  };
  const exit = child.exit.then((status) => {
    exited = true;
    later(limits.drain_timeout_ms, () => {
      for (const pump of pumps) {
        if (!pump.ended) {
          drainTimedOut = true;
          pump.stop();
        }
      }
    });
    return status;
  });

  try {
    const status = await exit;
    await Promise.all(pumps.map((pump) => pump.done));
    cleanup();
    // Background processes of the child (`sleep 30 &`) die with it, not with the worker, and
    // so do those that left its process group (`setsid`) where the cgroup holds them.
    const graceMs = options.killGraceMs ?? 2_000;
    const groupAlive = group && processGroupAlive(pid);
    const cgroupAlive = cgroup?.populated() ?? false;
    const killedStrays = groupAlive || cgroupAlive;
    await Promise.all([
      groupAlive ? terminateProcessGroup(pid, { graceMs }) : undefined,
      cgroupAlive ? cgroup?.terminate({ graceMs }) : undefined,
    ]);
    await cgroup?.remove();
    if (registry !== undefined) registry.remove(pid);
    const budget = allocateCombined({
      stdoutCap: limits.max_stdout_bytes,
      stderrCap: limits.max_stderr_bytes,
      stdoutBytes: stdout.totalBytes,
      stderrBytes: stderr.totalBytes,
      combined: limits.max_combined_bytes,
    });
    const [out, err] = await Promise.all([stdout.finish(budget.stdout), stderr.finish(budget.stderr)]);
    options.onProgress?.(progress());
    return {
      pid,
      exitCode: status.code,
      signal: status.signal,
      timedOut: killedBy === 'timeout',
      killedBy,
      drainTimedOut,
      killedStrays,
      durationMs: performance.now() - started,
      stdout: out,
      stderr: err,
      combined: {
        limit: limits.max_combined_bytes,
        totalBytes: out.totalBytes + err.totalBytes,
        retainedBytes: out.retainedBytes + err.retainedBytes,
        omittedBytes: out.omittedBytes + err.omittedBytes,
      },
    };
  } catch (error) {
    cleanup();
    if (StdioLimitsError.isInstance(error) && error.code === 'SPAWN_HELPER_DIED') {
      // The spawner lost the process (and ended it): no exit to report. End what is left of
      // it, then let the caller run it again.
      for (const pump of pumps) pump.stop();
      await Promise.all([
        group ? terminateProcessGroup(pid, { graceMs: 0 }) : undefined,
        cgroup?.terminate({ graceMs: 0 }),
      ]);
      await cgroup?.remove();
      if (registry !== undefined) registry.remove(pid);
      await Promise.allSettled([stdout.finish(), stderr.finish()]);
      throw error;
    }
    throw new StdioLimitsError('CAPTURE_FAILED', `capture of "${command}" failed`, { cause: error });
  }
}
