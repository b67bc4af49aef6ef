import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { resolveExecutable } from './resolve-executable.js';
import { bwrapArguments, limitArguments, type SandboxPolicy } from './sandbox-policy.js';

/** Options of {@link Sandbox.detect}. */
export interface SandboxDetectOptions {
  /** The `bwrap` to use (default: `bwrap` on `PATH`). */
  bwrap?: string;
  /** The `prlimit` applying limits inside (default: `prlimit` on `PATH`). */
  prlimit?: string;
  /** Where to look them up (default `process.env`). */
  env?: NodeJS.ProcessEnv;
}

/** What {@link Sandbox.detect} found: a sandbox, or why there is none on this machine. */
export type SandboxDetection =
  | { sandbox: Sandbox; reason?: undefined }
  | { sandbox?: undefined; reason: string };

/**
 * Runs processes in a bubblewrap (`bwrap`) sandbox: a user namespace where the process is
 * `nobody` without capabilities, its own PID namespace (a `/proc` without the worker, and
 * every process it starts, `setsid` or not, dies when it exits), its own network namespace
 * unless the policy allows the network, its own IPC and UTS namespaces, a new session (no
 * `TIOCSTI` into the worker's terminal), the file system as the {@link SandboxPolicy} says, and
 * its limits applied by `prlimit` inside. The environment is the one the process is spawned
 * with (bwrap passes its own on). Linux only.
 *
 * @example
 * ```ts
 * const { sandbox, reason } = Sandbox.detect();
 * if (sandbox === undefined) console.warn(`no sandbox: ${reason}`);
 * const [file, args] = sandbox?.wrap('sh', ['-c', 'id'], { writable: [workdir] }, workdir) ?? ['sh', ['-c', 'id']];
 * await captureProcess(file, { args });
 * ```
 */
export class Sandbox {
  /** The `bwrap` executable. */
  readonly bwrap: string;
  readonly #prlimit: string;

  private constructor(bwrap: string, prlimit: string) {
    this.bwrap = bwrap;
    this.#prlimit = prlimit;
  }

  /**
   * Finds `bwrap` and `prlimit` and starts one sandbox (`true`, with every namespace the policy
   * may ask for) to see that the kernel allows it: user namespaces may be refused (a sysctl,
   * AppArmor, a container's seccomp profile). The reason names what failed.
   */
  static detect(options: SandboxDetectOptions = {}): SandboxDetection {
    if (process.platform !== 'linux') return { reason: `sandboxes need Linux, not ${process.platform}` };
    const env = options.env ?? process.env;
    const bwrap = resolveExecutable(options.bwrap ?? 'bwrap', { env });
    if (bwrap === undefined)
      return { reason: `bubblewrap is not installed (no ${options.bwrap ?? 'bwrap'} on PATH)` };
    const prlimit = resolveExecutable(options.prlimit ?? 'prlimit', { env });
    if (prlimit === undefined) return { reason: 'prlimit (util-linux) is not installed' };
    const probe = spawnSync(bwrap, [...bwrapArguments({}), '--', prlimit, '--nofile=64', 'true'], {
      encoding: 'utf8',
      timeout: 10_000,
      env: { PATH: env.PATH ?? '/usr/bin:/bin' },
    });
    if (probe.error !== undefined) return { reason: `${bwrap} did not start: ${probe.error.message}` };
    if (probe.status !== 0) {
      const said = probe.stderr.trim().split('\n').at(-1) ?? '';
      return {
        reason: `${bwrap} cannot make a sandbox here (exit ${probe.status ?? probe.signal}): ${said || 'no message'}; user namespaces may be disabled (sysctl kernel.unprivileged_userns_clone, AppArmor, or the container's seccomp profile)`,
      };
    }
    return { sandbox: new Sandbox(bwrap, prlimit) };
  }

  /**
   * The command line that runs `file args` in this sandbox under `policy`, in `cwd` (a path
   * visible inside). Paths of the policy that do not exist are left out (nothing to hide or
   * bind).
   */
  wrap(file: string, args: readonly string[], policy: SandboxPolicy, cwd?: string): [string, string[]] {
    const existing = (paths: readonly string[] | undefined) =>
      (paths ?? []).filter((path) => existsSync(path));
    const present: SandboxPolicy = {
      ...policy,
      writable: existing(policy.writable),
      readable: existing(policy.readable),
      programs: existing(policy.programs),
      hidden: existing(policy.hidden),
      sockets: (policy.sockets ?? []).filter((socket) => existsSync(socket.source)),
    };
    const limits = limitArguments(policy);
    return [
      this.bwrap,
      [
        ...bwrapArguments(present, cwd, (path) => !statSync(path).isDirectory()),
        '--',
        ...(limits.length === 0 ? [] : [this.#prlimit, ...limits, '--']),
        file,
        ...args,
      ],
    ];
  }
}
