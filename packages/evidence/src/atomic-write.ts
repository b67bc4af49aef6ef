import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

function temporaryPath(path: string): string {
  return `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
}

/**
 * Writes a file atomically: the data goes to a temporary file beside it, which is then
 * renamed over the target, so readers see the old content or the new, never a torn write.
 *
 * @example
 * ```ts
 * await writeFileAtomic('/data/w1/metadata.json', JSON.stringify(metadata));
 * ```
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temporary = temporaryPath(path);
  try {
    await writeFile(temporary, data, { flush: true });
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/**
 * Moves `source` to `path` atomically. Across file systems it copies to a temporary file
 * beside the target, renames it into place and then deletes the source.
 *
 * @example
 * ```ts
 * await moveFileAtomic('/tmp/capture.log', '/data/w1/tool_calls/001_ssh_exec.txt');
 * ```
 */
export async function moveFileAtomic(source: string, path: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  try {
    await rename(source, path);
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
  }
  const temporary = temporaryPath(path);
  try {
    await copyFile(source, temporary);
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  await rm(source, { force: true });
}
