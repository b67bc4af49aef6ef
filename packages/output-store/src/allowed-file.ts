import { constants } from 'node:fs';
import { type FileHandle, lstat, open, realpath } from 'node:fs/promises';
import { isAbsolute, normalize, relative, resolve, sep } from 'node:path';
import { OutputPathError } from './errors.js';

/**
 * A file opened for copying in, after every path check passed.
 *
 * @example
 * ```ts
 * const file: AllowedFile = await openAllowedFile('/srv/work/a.txt', ['/srv/work']);
 * ```
 */
export interface AllowedFile {
  readonly handle: FileHandle;
  readonly sizeBytes: number;
  readonly realPath: string;
}

function isWithin(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/**
 * Opens `path` for reading only if it is an absolute path without `..` segments, lies under
 * one of `allowedRoots` (also after resolving symlinks) and is a regular file with a single
 * hard link. Throws {@link OutputPathError} with the reason otherwise. The caller closes the
 * handle.
 *
 * A second hard link is refused (`hard-link`) because a link inside a root can name a file
 * whose other name lies outside every root: the path checks cannot tell the two apart. The
 * link count is read from the opened handle, so a link swapped in before the open is caught.
 *
 * @example
 * ```ts
 * const file = await openAllowedFile('/srv/work/report.md', ['/srv/work']);
 * try { console.log(file.sizeBytes); } finally { await file.handle.close(); }
 * ```
 */
export async function openAllowedFile(path: string, allowedRoots: readonly string[]): Promise<AllowedFile> {
  if (!isAbsolute(path)) throw new OutputPathError(path, 'not-absolute', 'file paths must be absolute');
  if (path.split(/[\\/]+/).includes('..'))
    throw new OutputPathError(path, 'traversal', '".." segments are not allowed');
  if (allowedRoots.length === 0)
    throw new OutputPathError(path, 'outside-roots', 'no allowed roots are configured');
  const lexical = normalize(path);
  const roots = await Promise.all(
    allowedRoots.map(async (root) => ({ lexical: resolve(root), real: await realRoot(root) })),
  );
  if (
    !roots.some(
      (root) => isWithin(root.lexical, lexical) || (root.real !== undefined && isWithin(root.real, lexical)),
    )
  ) {
    throw new OutputPathError(path, 'outside-roots', `allowed roots: ${allowedRoots.join(', ')}`);
  }
  let real: string;
  try {
    real = await realpath(lexical);
  } catch (error) {
    throw new OutputPathError(path, 'missing', (error as NodeJS.ErrnoException).code ?? String(error));
  }
  if (!roots.some((root) => root.real !== undefined && isWithin(root.real, real))) {
    throw new OutputPathError(path, 'symlink-escape', `resolves to ${real}, outside the allowed roots`);
  }
  const info = await lstat(real);
  if (!info.isFile()) throw new OutputPathError(path, 'not-regular-file');
  const handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const opened = await handle.stat();
    if (!opened.isFile() || opened.ino !== info.ino) {
      throw new OutputPathError(path, 'not-regular-file', 'the file changed while it was opened');
    }
    if (opened.nlink > 1) {
      throw new OutputPathError(
        path,
        'hard-link',
        `the file has ${opened.nlink} hard links; another name may lie outside the allowed roots`,
      );
    }
    return { handle, sizeBytes: opened.size, realPath: real };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

async function realRoot(root: string): Promise<string | undefined> {
  try {
    return await realpath(root);
  } catch {
    return undefined;
  }
}
