import { chmodSync, lstatSync } from 'node:fs';

/**
 * Tightens an existing folder to 0700 (entered by this user only) when it is a real folder of
 * this user's, not a link and not a shared sticky folder such as `/tmp`; anything else, or
 * nothing at `path`, is left as it is. Evidence holds what tools printed: private whatever the
 * umask it was first written under.
 *
 * @example
 * ```ts
 * tightenPrivateDirectory('.wharf/artifacts');
 * ```
 */
export function tightenPrivateDirectory(path: string): void {
  const stats = lstatSync(path, { throwIfNoEntry: false });
  if (stats === undefined || !stats.isDirectory() || (stats.mode & 0o1077) === 0) return;
  const uid = process.getuid?.();
  if ((uid !== undefined && stats.uid !== uid) || (stats.mode & 0o1000) !== 0) return;
  chmodSync(path, 0o700);
}
