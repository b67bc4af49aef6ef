import { constants } from 'node:fs';
import { type FileHandle, lstat, open, readlink, realpath, rm } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { EvidenceError } from './evidence-error.js';

/**
 * Where an artifact store may take `{ filePath }` tool outputs from. Without any directory
 * configured, every file path is refused.
 *
 * @example
 * ```ts
 * const options: FileSourceOptions = { allowedRoots: ['/srv/captures'], spoolDirectories: ['.wharf/work'] };
 * ```
 */
export interface FileSourceOptions {
  /** Directories whose files the store may copy. It never moves, changes or deletes them. */
  allowedRoots?: readonly string[];
  /**
   * Directories of files made to be handed over to the store: a file given from one of
   * them becomes the store's, which moves it into place (or reads and deletes it).
   */
  spoolDirectories?: readonly string[];
}

/**
 * A `{ filePath }` output that passed the checks of {@link FileSourcePolicy.open}, opened.
 *
 * @example
 * ```ts
 * const source: FileSource = await policy.open('/srv/captures/build.log');
 * const bytes = await source.handle.readFile();
 * ```
 */
export interface FileSource {
  handle: FileHandle;
  /** The file's real location (every directory resolved, its own name never followed). */
  path: string;
  size: number;
  /** True inside a spool directory: the store owns the file and may move or delete it. */
  owned: boolean;
  /** Identity of the opened file, to check that what is moved or deleted is this file. */
  dev: number;
  ino: number;
}

/** Read only; never follow the file's own name; never block on a FIFO or device. */
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

function isInside(path: string, root: string): boolean {
  const rest = relative(root, path);
  return rest !== '' && !isAbsolute(rest) && rest.split(sep)[0] !== '..';
}

/** Where the opened file really is: the kernel's answer on Linux, else a re-check by identity. */
async function openedPath(
  handle: FileHandle,
  path: string,
  identity: { ino: number; dev: number },
): Promise<string | undefined> {
  const fromKernel = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined);
  if (fromKernel !== undefined && isAbsolute(fromKernel)) return fromKernel;
  const now = await lstat(path).catch(() => undefined);
  return now !== undefined && now.ino === identity.ino && now.dev === identity.dev ? path : undefined;
}

/**
 * The rules an artifact store applies to `{ filePath }` tool outputs, so that a path can
 * never make it read, move or delete a file it was not meant to have:
 *
 * - the path may not contain a `..` segment;
 * - the file must lie inside an allowed root or a spool directory once every directory on
 *   its way is resolved (a symbolic link to a directory elsewhere does not count as inside);
 * - the file itself may not be a symbolic link (it is opened with `O_NOFOLLOW`) and must be
 *   a regular file;
 * - the file may have no other name (hard link) than those the caller declares in
 *   `hardLinks`, each of which must itself pass these checks and be the same file: a hard link
 *   shares its content with every other name of the file, which may be outside;
 * - on Linux the opened descriptor's real path is checked again, so swapping a directory
 *   for a link between the check and the open is caught too.
 *
 * A refused path throws {@link EvidenceError} `PATH_NOT_ALLOWED` naming the path and why;
 * a missing file throws `INVALID_ARTIFACT`. Nothing is moved or deleted on refusal.
 *
 * @example
 * ```ts
 * const policy = new FileSourcePolicy({ allowedRoots: ['/srv/captures'] });
 * const source = await policy.open('/srv/captures/build.log');
 * try {
 *   console.log(source.size, source.owned); // owned: false, so copy it, never move it
 * } finally {
 *   await source.handle.close();
 * }
 * ```
 */
export class FileSourcePolicy {
  readonly allowedRoots: readonly string[];
  #spoolDirectories: string[];
  /**
   * Real paths of configured directories, resolved once each: a file's own path is still
   * resolved on every open, and its descriptor's real path checked against these. A directory
   * moved or replaced by a link afterwards makes the files under it refused, never accepted.
   */
  readonly #realPaths = new Map<string, string>();

  constructor(options: FileSourceOptions = {}) {
    this.allowedRoots = (options.allowedRoots ?? []).map((root) => resolve(root));
    this.#spoolDirectories = (options.spoolDirectories ?? []).map((directory) => resolve(directory));
  }

  /** Directories whose files are handed over to the store. */
  get spoolDirectories(): readonly string[] {
    return this.#spoolDirectories;
  }

  /**
   * Declares one more spool directory: a directory whose files belong to the caller and are
   * handed over (moved or deleted once stored). A Wharf worker declares its work directory.
   */
  addSpoolDirectory(directory: string): void {
    const resolved = resolve(directory);
    if (!this.#spoolDirectories.includes(resolved)) this.#spoolDirectories.push(resolved);
  }

  /**
   * Checks `filePath` against the rules above and opens it for reading. `hardLinks` are the
   * file's other names the caller made (e.g. a capture linked so that it can hand one name
   * over and keep reading the other).
   */
  async open(filePath: string, hardLinks: readonly string[] = []): Promise<FileSource> {
    // The declared names' folders are resolved once for this call (a spill and its link share one).
    const folders = new Map<string, Promise<string>>();
    const source = await this.#openChecked(filePath, folders);
    try {
      const names = new Set([source.path]);
      for (const other of hardLinks) {
        const linked = await this.#openChecked(other, folders);
        await linked.handle.close();
        if (linked.dev !== source.dev || linked.ino !== source.ino) {
          throw new EvidenceError(
            'PATH_NOT_ALLOWED',
            `output.hardLinks ${other} is not a name of ${filePath}`,
          );
        }
        names.add(linked.path);
      }
      const { nlink } = await source.handle.stat();
      if (nlink > names.size) {
        throw new EvidenceError(
          'PATH_NOT_ALLOWED',
          `output.filePath ${filePath} has ${nlink} hard links, ${nlink - names.size} of them unaccounted for (they may be outside the store's allowed directories)`,
        );
      }
      return source;
    } catch (error) {
      await source.handle.close();
      throw error;
    }
  }

  /** Real paths of the directories that exist (a missing one holds nothing to accept, and is looked for again). */
  async #realDirectories(directories: readonly string[]): Promise<string[]> {
    const found = await Promise.all(
      directories.map(async (directory) => {
        const known = this.#realPaths.get(directory);
        if (known !== undefined) return known;
        const real = await realpath(directory).catch(() => undefined);
        if (real !== undefined) this.#realPaths.set(directory, real);
        return real;
      }),
    );
    return found.filter((directory): directory is string => directory !== undefined);
  }

  async #openChecked(filePath: string, folders: Map<string, Promise<string>>): Promise<FileSource> {
    if (typeof filePath !== 'string' || filePath === '' || filePath.includes('\u0000')) {
      throw new EvidenceError('INVALID_ARTIFACT', 'output.filePath must be a non-empty path');
    }
    const refuse = (why: string, cause?: unknown): never => {
      throw new EvidenceError(
        'PATH_NOT_ALLOWED',
        `output.filePath ${filePath} ${why}`,
        cause === undefined ? undefined : { cause },
      );
    };
    const missing = (cause: unknown): never => {
      throw new EvidenceError('INVALID_ARTIFACT', `output.filePath ${filePath} does not exist`, { cause });
    };
    if (filePath.split(/[\\/]/).includes('..')) refuse('contains a ".." segment');
    const configured = [...this.spoolDirectories, ...this.allowedRoots];
    if (configured.length === 0) {
      refuse('is refused: this store takes no files (configure allowedRoots or spoolDirectories)');
    }
    const spools = await this.#realDirectories(this.spoolDirectories);
    const roots = [...spools, ...(await this.#realDirectories(this.allowedRoots))];
    const outside = () => refuse(`is outside the store's allowed directories (${configured.join(', ')})`);

    const absolute = resolve(filePath);
    let folder = folders.get(dirname(absolute));
    if (folder === undefined) {
      folder = realpath(dirname(absolute));
      folders.set(dirname(absolute), folder);
    }
    const directory = await folder.catch((error: unknown) =>
      isMissing(error) ? missing(error) : Promise.reject(error),
    );
    const path = join(directory, basename(absolute));
    if (!roots.some((root) => isInside(path, root))) outside();
    let handle: FileHandle;
    try {
      handle = await open(path, OPEN_FLAGS);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ELOOP' || code === 'EMLINK') return refuse('is a symbolic link', error);
      if (isMissing(error)) return missing(error);
      throw error;
    }
    try {
      const stats = await handle.stat();
      if (!stats.isFile()) refuse('is not a regular file');
      const real = (await openedPath(handle, path, stats)) ?? refuse('changed while it was opened');
      if (!roots.some((root) => isInside(real, root))) outside();
      return {
        handle,
        path: real,
        size: stats.size,
        owned: spools.some((root) => isInside(real, root)),
        dev: stats.dev,
        ino: stats.ino,
      };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }
}

/**
 * Deletes a handed-over file after the store took its content, but only if the name still
 * points at the file that was read (never whatever was put there since).
 *
 * @example
 * ```ts
 * if (source.owned) await discardFileSource(source);
 * ```
 */
export async function discardFileSource(source: FileSource): Promise<void> {
  if (!source.owned) return;
  const now = await lstat(source.path).catch(() => undefined);
  if (now !== undefined && now.ino === source.ino && now.dev === source.dev) {
    await rm(source.path, { force: true });
  }
}
