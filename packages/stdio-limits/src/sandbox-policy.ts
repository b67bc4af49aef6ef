import { resolve } from 'node:path';

/** A Unix socket of the host made reachable inside a sandbox at a fixed path. */
export interface SandboxSocket {
  /** The socket's path on the host. */
  source: string;
  /** Where the sandboxed process finds it (under `/run`, which the sandbox replaces). */
  target: string;
}

/**
 * What a sandboxed process may reach. Everything not listed is read-only (`root: 'read-only'`)
 * or absent (`root: 'minimal'`: only the system directories `/usr`, `/bin`, `/sbin`, `/lib*`
 * and `/etc`); `/tmp` and `/run` are always private (empty but for the `programs` that lie
 * there), `/proc` shows only the sandbox's own processes, and `/dev` has the usual devices only.
 *
 * @example
 * ```ts
 * const policy: SandboxPolicy = {
 *   network: 'none',
 *   writable: ['/srv/jobs/42'],
 *   hidden: ['/srv/jobs/42/.wharf'],
 *   maxMemoryBytes: 2 * 1024 ** 3,
 * };
 * ```
 */
export interface SandboxPolicy {
  /** `none` (default): a network namespace of its own with only a loopback; `allow`: the host's network. */
  network?: 'none' | 'allow';
  /** The rest of the file system: `read-only` (default) or `minimal`. */
  root?: 'read-only' | 'minimal';
  /** Bound read-write at the same path (the task's work directory). */
  writable?: readonly string[];
  /** Bound read-only at the same path, also inside a hidden directory (a task's input files). */
  readable?: readonly string[];
  /**
   * Where the programs the process runs are installed (Wharf's own install, the `node`
   * executable's directory), seen as the root shows them: under `root: 'read-only'` those
   * lying under `/tmp` or `/run`, which the sandbox replaces with private ones, are bound back
   * read-only (only they: the rest of the host's `/tmp` stays out of sight); elsewhere the
   * read-only root shows them already. Under `root: 'minimal'` they are not shown (list them in
   * `readable` to show them there).
   */
  programs?: readonly string[];
  /**
   * Replaced by an empty directory (the data directory, other tasks' work directories), or by
   * an empty file for a file (`~/.netrc`).
   */
  hidden?: readonly string[];
  /** Unix sockets bound in (the EMIT intake). */
  sockets?: readonly SandboxSocket[];
  /** Data segment limit (`RLIMIT_DATA`, what `malloc` and the JS heaps take), bytes. */
  maxMemoryBytes?: number;
  /**
   * Most processes of the sandbox's user (`RLIMIT_NPROC`). The kernel does not apply it to
   * processes that are root outside the sandbox (a worker running as root).
   */
  maxProcesses?: number;
  /** CPU time (`RLIMIT_CPU`), seconds: past it the process gets SIGXCPU, then SIGKILL. */
  maxCpuSeconds?: number;
}

/** The uid and gid inside the sandbox: `nobody`, in a user namespace of its own. */
export const SANDBOX_UID = 65534;

/** Where systemd-resolved keeps the `resolv.conf` that `/etc/resolv.conf` often links to. */
const RESOLVED = '/run/systemd/resolve';

const SYSTEM_DIRECTORIES = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc'];

/** The directories the sandbox replaces with private, empty ones. */
const PRIVATE_DIRECTORIES = ['/tmp', '/run'];

/**
 * The `bwrap` arguments for a policy, up to and excluding the command: namespaces, mounts
 * (parents before what lies inside them, so that a data directory inside the work directory is
 * hidden and an input file inside the data directory shows again; `programs` under `/tmp` or
 * `/run` after those are replaced) and the working directory.
 * `isFile` says which hidden paths are files (they are covered with an empty file).
 * Limits are not bwrap's: see {@link limitArguments}.
 *
 * @example
 * ```ts
 * bwrapArguments({ writable: ['/w'] }, '/w');
 * // ['--die-with-parent', '--new-session', '--unshare-user', …, '--bind', '/w', '/w', '--chdir', '/w']
 * bwrapArguments({ writable: ['/w'], programs: ['/tmp/wharf', '/opt/node/bin'] }, '/w');
 * // [… '--tmpfs', '/tmp', '--tmpfs', '/run', '--ro-bind', '/tmp/wharf', '/tmp/wharf', '--bind', '/w', '/w', …]
 * ```
 */
export function bwrapArguments(
  policy: SandboxPolicy,
  cwd?: string,
  isFile: (path: string) => boolean = () => false,
): string[] {
  const args = [
    '--die-with-parent',
    '--new-session',
    '--unshare-user',
    '--uid',
    String(SANDBOX_UID),
    '--gid',
    String(SANDBOX_UID),
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    ...(policy.network === 'allow' ? [] : ['--unshare-net']),
  ];
  if (policy.root === 'minimal') {
    for (const directory of SYSTEM_DIRECTORIES) args.push('--ro-bind-try', directory, directory);
  } else {
    args.push('--ro-bind', '/', '/');
  }
  args.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp', '--tmpfs', '/run');
  // With the network, names must resolve: /etc/resolv.conf often points into /run (systemd-resolved).
  if (policy.network === 'allow') args.push('--ro-bind-try', RESOLVED, RESOLVED);
  // Programs first: at one depth a task's own bind (its work directory) wins over them.
  const programs = policy.root === 'minimal' ? [] : (policy.programs ?? []).filter(insidePrivateDirectory);
  const mounts: { path: string; args: string[] }[] = [
    ...programs.map((path) => ({ path: resolve(path), args: ['--ro-bind', path, path] })),
    ...(policy.writable ?? []).map((path) => ({ path: resolve(path), args: ['--bind', path, path] })),
    ...(policy.readable ?? []).map((path) => ({ path: resolve(path), args: ['--ro-bind', path, path] })),
    ...(policy.hidden ?? []).map((path) => ({
      path: resolve(path),
      args: isFile(path) ? ['--ro-bind', '/dev/null', path] : ['--tmpfs', path],
    })),
  ].map((mount) => ({
    ...mount,
    args: mount.args.map((arg) => (arg.startsWith('--') ? arg : resolve(arg))),
  }));
  // Shallow first; at one depth, binds before hiding, so a hidden path always wins over its own bind.
  mounts.sort((a, b) => depth(a.path) - depth(b.path));
  for (const mount of mounts) args.push(...mount.args);
  for (const socket of policy.sockets ?? []) args.push('--bind', socket.source, socket.target);
  if (cwd !== undefined) args.push('--chdir', resolve(cwd));
  return args;
}

/**
 * The `prlimit` arguments applying a policy's limits, or none when it sets none.
 *
 * @example
 * ```ts
 * limitArguments({ maxMemoryBytes: 1 << 30, maxCpuSeconds: 60 }); // ['--data=1073741824', '--cpu=60']
 * ```
 */
export function limitArguments(policy: SandboxPolicy): string[] {
  return [
    ...(policy.maxMemoryBytes === undefined ? [] : [`--data=${policy.maxMemoryBytes}`]),
    ...(policy.maxProcesses === undefined ? [] : [`--nproc=${policy.maxProcesses}`]),
    ...(policy.maxCpuSeconds === undefined ? [] : [`--cpu=${policy.maxCpuSeconds}`]),
  ];
}

/** Whether `path` lies inside `/tmp` or `/run` (not one of them itself: that would show all of it). */
function insidePrivateDirectory(path: string): boolean {
  const absolute = resolve(path);
  return PRIVATE_DIRECTORIES.some((directory) => absolute.startsWith(`${directory}/`));
}

function depth(path: string): number {
  return path === '/' ? 0 : path.split('/').length - 1;
}
