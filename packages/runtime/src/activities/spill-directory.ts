import { join } from 'node:path';

/**
 * The folder of one attempt of one worker's process under the worker's work directory:
 * `<workDir>/<workerId>.<attempt name>`. Its spill files, input files and context file live
 * there until they are handed over, and the folder is removed after; one level, so that removing
 * it leaves nothing behind (a folder per worker above it stayed, empty, for every instance of a
 * map, and making it was one more inode per instance).
 *
 * @example
 * ```ts
 * spillDirectory('/data/work', 'fan-out:fan.3', 'attempt-1'); // '/data/work/fan-out:fan.3.attempt-1'
 * ```
 */
export function spillDirectory(workDir: string, workerId: string, attempt: string): string {
  return join(workDir, `${workerId}.${attempt}`);
}
