import { chmodSync, closeSync, lstatSync, mkdirSync, openSync, type Stats } from 'node:fs';

/** A folder or file this process's user owns, and no shared sticky folder such as `/tmp`. */
function ours(stats: Stats): boolean {
  const uid = process.getuid?.();
  return (uid === undefined || stats.uid === uid) && (stats.mode & 0o1000) === 0;
}

/**
 * Creates `path` and its missing parents as folders only this user may enter (0700), and
 * tightens `path` to 0700 when it exists already as a real folder of this user's (not a link,
 * not a shared sticky folder). Stored outputs are private whatever the umask.
 *
 * @example
 * ```ts
 * ensurePrivateDirectory('/var/lib/wharf/outputs.db.blobs');
 * ```
 */
export function ensurePrivateDirectory(path: string): void {
  mkdirSync(path, { recursive: true, mode: 0o700 });
  const stats = lstatSync(path);
  if (stats.isDirectory() && ours(stats) && (stats.mode & 0o077) !== 0) chmodSync(path, 0o700);
}

/**
 * Tightens an existing regular file of this user's to 0600 (read and written by this user
 * only); a missing file, a link or another user's file is left as it is.
 *
 * @example
 * ```ts
 * for (const suffix of ['', '-wal', '-shm']) tightenPrivateFile(`${dbPath}${suffix}`);
 * ```
 */
export function tightenPrivateFile(path: string): void {
  const stats = lstatSync(path, { throwIfNoEntry: false });
  if (stats?.isFile() && ours(stats) && (stats.mode & 0o077) !== 0) chmodSync(path, 0o600);
}

/**
 * Creates `path` as an empty file only this user may read and write (0600) when nothing is
 * there; an existing file is left as it is (opened by whoever may, tightened by
 * {@link tightenPrivateFile} when it is this user's).
 *
 * @example
 * ```ts
 * createPrivateFile(dbPath); // before SQLite opens it: its -wal and -shm copy its mode
 * ```
 */
export function createPrivateFile(path: string): void {
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}
