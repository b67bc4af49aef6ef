import { constants, type Stats } from 'node:fs';
import { type FileHandle, lstat, mkdir, open, readlink, realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { WharfOrchestratorError } from '@wharf/swarm';

/** What {@link openInWorkdir} opens a file for. */
export type WorkdirAccess = 'read' | 'write' | 'append';

/** A regular file of the work directory, open, with one name only. */
export interface WorkdirFile {
  handle: FileHandle;
  /** Its size when it was opened (after the truncation of a `write`). */
  size: number;
}

/** Options of {@link openInWorkdir}. */
export interface OpenInWorkdirOptions {
  /**
   * Walk from directory handles through `/proc/self/fd` (Linux). Default: where `/proc/self/fd`
   * works. `false` takes the weaker walk by path that other systems get (see {@link openInWorkdir}).
   */
  procFd?: boolean;
}

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_APPEND, O_NOFOLLOW, O_NONBLOCK, O_DIRECTORY } = constants;
/** A directory on the way: never a symbolic link, never a FIFO (so never a blocked thread). */
const DIRECTORY_FLAGS = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK;
/** The same bound as the kernel's on links followed in one lookup. */
const MAX_LINKS = 40;

let procFdSupport: Promise<boolean> | undefined;

/** Whether a directory handle's `/proc/self/fd/<fd>` leads to that directory (Linux with /proc). */
function procFdWorks(): Promise<boolean> {
  procFdSupport ??= (async () => {
    if (process.platform !== 'linux') return false;
    const handle = await open('/', DIRECTORY_FLAGS).catch(() => undefined);
    if (handle === undefined) return false;
    try {
      const [viaProc, direct] = await Promise.all([stat(`/proc/self/fd/${handle.fd}`), handle.stat()]);
      return viaProc.ino === direct.ino && viaProc.dev === direct.dev;
    } catch {
      return false;
    } finally {
      await handle.close();
    }
  })();
  return procFdSupport;
}

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

/** `path`'s components relative to the work directory, `.` and `..` resolved by name. */
function componentsOf(path: string, roots: readonly string[]): string[] | undefined {
  let rest = path;
  if (isAbsolute(path)) {
    const inside = roots
      .map((root) => relative(root, resolve(path)))
      .find((candidate) => candidate !== '..' && !candidate.startsWith(`..${sep}`) && !isAbsolute(candidate));
    if (inside === undefined) return undefined;
    rest = inside;
  }
  return resolveDots(rest.split('/'));
}

/** Components with `.` and empty ones dropped and `..` applied; undefined when `..` climbs out. */
function resolveDots(parts: readonly string[]): string[] | undefined {
  const components: string[] = [];
  for (const part of parts) {
    if (part === '' || part === '.') continue;
    if (part !== '..') components.push(part);
    else if (components.pop() === undefined) return undefined;
  }
  return components;
}

/**
 * Opens a regular file of a work directory for an agent's `read_file` / `write_file`, so that
 * no path, link or concurrent rename can make it reach a file elsewhere:
 *
 * - the path is taken apart by name (`..` that climbs out, or an absolute path elsewhere, is
 *   refused) and walked one component at a time from an open handle of the work directory,
 *   each directory opened with `O_NOFOLLOW | O_DIRECTORY` from its parent's handle (through
 *   `/proc/self/fd/<fd>/<name>`, Linux's stand-in for `openat`): a directory swapped for a
 *   link mid-walk is refused, never followed;
 * - a symbolic link met on the way is read, never followed by the kernel: its target is
 *   resolved by name against the work directory (one leading outside is refused) and walked
 *   again from the work directory's handle, at most 40 links per call;
 * - the file is opened `O_NOFOLLOW | O_NONBLOCK` (a FIFO neither blocks a thread nor gets
 *   read) and checked on the open handle: anything but a regular file is refused with
 *   `NOT_A_REGULAR_FILE`, and a file with more than one name (a hard link, whose other names
 *   may be outside) with `PATH_OUTSIDE_WORKDIR`;
 * - `write` and `append` create missing directories from their parent's handle, create a new
 *   file with `O_CREAT | O_EXCL | O_NOFOLLOW`, and `write` truncates an existing one only after
 *   the checks.
 *
 * Where `/proc/self/fd` is missing (macOS, BSD, a Linux without /proc), each component is
 * opened by its full path instead: links and hard links are still refused as above, but a
 * process that renames directories of the work directory while the call runs can still make
 * one call reach outside. Run agents whose work directory other processes change on Linux.
 * A missing file is `FILE_NOT_FOUND`. A link swapped back for a folder (or gone) between being
 * met and being read makes the walk start again (at most 40 times in all); a name that changes
 * under the walk in any other way is refused with the code it stands for (`FILE_NOT_FOUND`,
 * `NOT_A_REGULAR_FILE`), naming the path and the system error, never with the bare system
 * error. Close the handle when done.
 *
 * @example
 * ```ts
 * const file = await openInWorkdir('/repo', 'src/index.ts', 'read');
 * try {
 *   const { bytesRead } = await file.handle.read(Buffer.alloc(100), 0, 100, 0);
 * } finally {
 *   await file.handle.close();
 * }
 * ```
 */
export async function openInWorkdir(
  workdir: string,
  path: string,
  access: WorkdirAccess,
  options: OpenInWorkdirOptions = {},
): Promise<WorkdirFile> {
  const refuse = (code: RefusalCode, why: string, cause?: unknown) =>
    new WharfOrchestratorError(
      code,
      `${path}: ${why} (work directory ${workdir})`,
      cause === undefined ? undefined : { cause },
    );
  if (path.includes('\0')) throw refuse('FILE_NOT_FOUND', 'a path cannot hold a NUL byte');
  const viaProc = options.procFd ?? (await procFdWorks());
  const root = await open(workdir, O_RDONLY | O_DIRECTORY);
  try {
    const realRoot = viaProc ? await readlink(`/proc/self/fd/${root.fd}`) : await realpath(workdir);
    const roots = [resolve(workdir), realRoot];
    let components = componentsOf(path, roots);
    if (components === undefined) throw refuse('PATH_OUTSIDE_WORKDIR', 'outside the work directory');
    for (let links = 0; ; links += 1) {
      if (links > MAX_LINKS)
        throw refuse(
          'PATH_OUTSIDE_WORKDIR',
          `more than ${MAX_LINKS} symbolic links, or links that kept changing while it was opened`,
        );
      const walk = await walkOnce({ root, roots, viaProc, components, access, refuse });
      if ('file' in walk) return walk.file;
      components = walk.again;
    }
  } catch (error) {
    throw raceRefusal(error, refuse);
  } finally {
    await root.close();
  }
}

type RefusalCode = 'PATH_OUTSIDE_WORKDIR' | 'NOT_A_REGULAR_FILE' | 'FILE_NOT_FOUND';

/**
 * A system error that a name changing under the walk can cause (a concurrent rename, a folder
 * swapped for a link or a file), as the typed refusal it stands for, naming the path and why;
 * any other error (a refusal already, `EACCES`, `ENOSPC`…) as it is.
 */
function raceRefusal(
  error: unknown,
  refuse: (code: RefusalCode, why: string, cause?: unknown) => Error,
): unknown {
  if (WharfOrchestratorError.isInstance(error)) return error;
  const code = errorCode(error);
  const syscall = (error as NodeJS.ErrnoException | undefined)?.syscall ?? 'open';
  const during = `changed while it was opened (${code} from ${syscall})`;
  switch (code) {
    case 'ENOENT':
      return refuse('FILE_NOT_FOUND', `no such file: a name on its way ${during}`, error);
    case 'ENOTDIR':
    case 'EISDIR':
    case 'EINVAL':
    case 'ELOOP':
    case 'ENXIO':
      return refuse('NOT_A_REGULAR_FILE', `not a regular file: a name on its way ${during}`, error);
    default:
      return error;
  }
}

interface Walk {
  root: FileHandle;
  /** The work directory as given and as the kernel resolved it: absolute link targets may name either. */
  roots: readonly string[];
  viaProc: boolean;
  components: readonly string[];
  access: WorkdirAccess;
  refuse: (code: RefusalCode, why: string) => Error;
}

/** One walk from the root: the opened file, or the components to walk again after a link. */
async function walkOnce(walk: Walk): Promise<{ file: WorkdirFile } | { again: string[] }> {
  const { components, access, refuse } = walk;
  if (components.length === 0) throw refuse('NOT_A_REGULAR_FILE', 'is the work directory itself');
  const opened: FileHandle[] = [];
  let directory = walk.root;
  const walked: string[] = [];
  const realRoot = walk.roots.at(-1) as string;
  const entry = (name: string) =>
    walk.viaProc ? `/proc/self/fd/${directory.fd}/${name}` : [realRoot, ...walked, name].join('/');
  const named = (name: string) => [...walked, name].join('/');
  const isLink = async (name: string) => (await lstat(entry(name)).catch(() => undefined))?.isSymbolicLink();
  /** A link at `name`: the components to walk instead, its target resolved by name. */
  const followLink = async (name: string, rest: readonly string[]): Promise<{ again: string[] }> => {
    let target: string;
    try {
      target = await readlink(entry(name));
    } catch (error) {
      // Swapped since it was met as a link (a concurrent rename): no link any more (EINVAL) or
      // no name (ENOENT). Walk the same path again; the next walk sees what is there now.
      const code = errorCode(error);
      if (code === 'EINVAL' || code === 'ENOENT') return { again: [...walked, name, ...rest] };
      throw error;
    }
    const base = isAbsolute(target)
      ? componentsOf(target, walk.roots)
      : resolveDots([...walked, ...target.split('/')]);
    if (base === undefined)
      throw refuse('PATH_OUTSIDE_WORKDIR', `the symbolic link ${named(name)} leads outside`);
    return { again: [...base, ...rest] };
  };
  try {
    for (const [index, name] of components.slice(0, -1).entries()) {
      let next: FileHandle | undefined;
      for (let attempt = 0; next === undefined; attempt += 1) {
        try {
          next = await open(entry(name), DIRECTORY_FLAGS);
        } catch (error) {
          const code = errorCode(error);
          if ((code === 'ENOTDIR' || code === 'ELOOP') && (await isLink(name))) {
            return await followLink(name, components.slice(index + 1));
          }
          if (code === 'ENOENT' && access !== 'read' && attempt === 0) {
            await mkdir(entry(name)).catch((made: unknown) => {
              if (errorCode(made) !== 'EEXIST') throw made;
            });
            continue;
          }
          if (code === 'ENOENT') throw refuse('FILE_NOT_FOUND', `no directory ${named(name)}`);
          if (code === 'ENOTDIR') throw refuse('NOT_A_REGULAR_FILE', `${named(name)} is not a directory`);
          throw error;
        }
      }
      opened.push(next);
      directory = next;
      walked.push(name);
    }
    const name = components.at(-1) as string;
    let handle: FileHandle;
    try {
      handle = await openFinal(entry(name), access);
    } catch (error) {
      const code = errorCode(error);
      if (code === 'ELOOP' && (await isLink(name))) return await followLink(name, []);
      if (code === 'ENOENT') throw refuse('FILE_NOT_FOUND', 'no such file');
      if (code === 'EISDIR') throw refuse('NOT_A_REGULAR_FILE', 'is a directory');
      if (code === 'ENXIO') throw refuse('NOT_A_REGULAR_FILE', 'is a FIFO or a socket');
      throw error;
    }
    try {
      const stats = await handle.stat();
      if (!stats.isFile()) throw refuse('NOT_A_REGULAR_FILE', `is ${kindOf(stats)}`);
      if (stats.nlink > 1) {
        throw refuse(
          'PATH_OUTSIDE_WORKDIR',
          `has ${stats.nlink} hard links; its other names may be outside the work directory`,
        );
      }
      if (access === 'write' && stats.size > 0) await handle.truncate(0);
      return { file: { handle, size: access === 'write' ? 0 : stats.size } };
    } catch (error) {
      await handle.close();
      throw error;
    }
  } finally {
    await Promise.all(opened.map((handle) => handle.close()));
  }
}

/** Opens the last component: never following it, never blocking, creating it for a write. */
async function openFinal(path: string, access: WorkdirAccess): Promise<FileHandle> {
  if (access === 'read') return open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  const flags = O_WRONLY | O_NOFOLLOW | O_NONBLOCK | (access === 'append' ? O_APPEND : 0);
  for (;;) {
    try {
      return await open(path, flags | O_CREAT | O_EXCL, 0o666);
    } catch (error) {
      if (errorCode(error) !== 'EEXIST') throw error;
    }
    try {
      return await open(path, flags);
    } catch (error) {
      // Removed between the two opens: create it again.
      if (errorCode(error) !== 'ENOENT') throw error;
    }
  }
}

/**
 * Reads bytes `start` (inclusive) to `end` (exclusive) of an open file, fewer if it ends first.
 *
 * @example
 * ```ts
 * const head = await readRange(file.handle, 0, 100);
 * ```
 */
export async function readRange(handle: FileHandle, start: number, end: number): Promise<Buffer> {
  const buffer = Buffer.alloc(Math.max(0, end - start));
  let filled = 0;
  while (filled < buffer.length) {
    const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, start + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}
