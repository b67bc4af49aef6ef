import { lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { othersControl } from '@wharf/common';
import { BlobDirectory, processAlive } from './blobs/blob-directory.js';
import { InvalidStoreOptionError } from './errors.js';

/**
 * A private folder where a store spools large bodies before storing them elsewhere, and how
 * to give it back.
 *
 * @example
 * ```ts
 * const spool = openSpoolFolder(undefined);
 * const temp = spool.directory.claimTemp();
 * spool.dispose();
 * ```
 */
export interface SpoolFolder {
  readonly directory: BlobDirectory;
  /** Removes the folder if the store created it for itself; a configured folder stays. */
  dispose(): void;
}

const freshPrefix = 'wharf-spool-';

/**
 * Refuses a spool folder another user could read from or plant files in: it must be a real
 * directory (not a symbolic link), owned by this process's user, and writable by no one else.
 */
function assertPrivate(path: string): void {
  const stats = lstatSync(path);
  if (stats.isSymbolicLink())
    throw new InvalidStoreOptionError('spoolDir', `${path} is a symbolic link; give a real directory`);
  if (!stats.isDirectory()) throw new InvalidStoreOptionError('spoolDir', `${path} is not a directory`);
  const reason = othersControl(stats, process.getuid?.());
  if (reason !== undefined)
    throw new InvalidStoreOptionError(
      'spoolDir',
      `${path} ${reason}; give a folder only this user may write to (0700)`,
    );
}

/**
 * Removes the fresh spool folders (`<tmpdir>/wharf-spool-<pid>-…`) of this user's processes
 * that are gone (killed before they could remove their own). Only real directories owned by
 * this user are touched; nothing is followed through a link.
 */
function removeDeadFolders(parent: string): void {
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return;
  }
  const uid = process.getuid?.();
  for (const name of names) {
    if (!name.startsWith(freshPrefix)) continue;
    const pid = Number(name.slice(freshPrefix.length).split('-')[0]);
    if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid || processAlive(pid)) continue;
    const path = join(parent, name);
    try {
      const stats = lstatSync(path);
      if (!stats.isDirectory() || (uid !== undefined && stats.uid !== uid)) continue;
      rmSync(path, { recursive: true, force: true });
    } catch {
      // Another process removed it first, or it is not ours to remove.
    }
  }
}

/**
 * Opens the folder a store spools large bodies in. Without `configured`, a fresh folder of its
 * own under the system temp directory (`mkdtemp`: a new name, mode 0700, created atomically, so
 * nothing planted beforehand is ever followed), removed by `dispose`; folders left by dead
 * processes of this user are removed first. With `configured`, that folder (created 0700 when
 * missing), refused with {@link InvalidStoreOptionError} when it is a symbolic link, another
 * user's, or writable by others. Spooled files are created 0600 (`spoolBody`).
 *
 * @example
 * ```ts
 * const spool = openSpoolFolder('/var/lib/wharf/spool');
 * ```
 */
export function openSpoolFolder(configured: string | undefined): SpoolFolder {
  if (configured === undefined) {
    const parent = tmpdir();
    removeDeadFolders(parent);
    const path = mkdtempSync(join(parent, `${freshPrefix}${process.pid}-`));
    return {
      directory: new BlobDirectory(path),
      dispose: () => rmSync(path, { recursive: true, force: true }),
    };
  }
  try {
    mkdirSync(configured, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST')
      throw new InvalidStoreOptionError('spoolDir', `cannot create ${configured}: ${String(error)}`);
  }
  assertPrivate(configured);
  const directory = new BlobDirectory(configured);
  directory.removeDeadTemps();
  return { directory, dispose: () => undefined };
}
