/** What {@link othersControl} reads of a file's status (`fs.Stats` has both). */
export interface OwnerAndMode {
  uid: number;
  mode: number;
}

/**
 * Why a user other than `uid` (this process's user, `process.getuid?.()`; `undefined` where
 * there are no user ids) could change a file or folder — it belongs to another user, or its
 * group or others may write to it — or `undefined` when none could. The output store's spool
 * folder and the worker's bundle cache refuse what another user controls.
 *
 * @example
 * ```ts
 * othersControl(lstatSync(dir), process.getuid?.()); // undefined, or 'is writable by other users (mode 777)'
 * ```
 */
export function othersControl(stats: OwnerAndMode, uid: number | undefined): string | undefined {
  if (uid !== undefined && stats.uid !== uid)
    return `belongs to user ${stats.uid}, not to this process's user ${uid}`;
  if ((stats.mode & 0o022) !== 0)
    return `is writable by other users (mode ${(stats.mode & 0o777).toString(8)})`;
  return undefined;
}
