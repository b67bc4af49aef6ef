import { randomBytes } from 'node:crypto';
import { type FileHandle, lstat, mkdir, open, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { discardFileSource, type FileSource } from './file-source.js';

const COPY_CHUNK_BYTES = 1024 * 1024;

function temporaryPath(path: string): string {
  return `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

/**
 * Runs `create`, which makes a file in the folder of `path`; when that folder is missing (a new
 * worker's, or one removed meanwhile) makes it (`0700`, with its parents) and runs `create` once
 * more. A folder that exists costs nothing, where a `mkdir -p` before every write cost a call
 * that failed with `EEXIST`.
 *
 * @example
 * ```ts
 * await inFolderOf('/data/w1/metadata.json', () => writeFile('/data/w1/metadata.json.tmp', text));
 * ```
 */
export async function inFolderOf<T>(path: string, create: () => Promise<T>): Promise<T> {
  try {
    return await create();
  } catch (error) {
    if (!isMissing(error)) throw error;
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    return create();
  }
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
  const temporary = temporaryPath(path);
  try {
    await inFolderOf(path, () => writeFile(temporary, data, { flush: true }));
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/**
 * Copies everything an open file holds to `path` atomically (a temporary file beside the
 * target, renamed into place). The source is read through its handle only, never by name.
 *
 * @example
 * ```ts
 * await copyFileAtomic(source.handle, '/data/w1/tool_calls/001_ssh_exec.txt');
 * ```
 */
export async function copyFileAtomic(source: FileHandle, path: string): Promise<void> {
  const temporary = temporaryPath(path);
  try {
    const target = await inFolderOf(path, () => open(temporary, 'wx'));
    try {
      const buffer = new Uint8Array(COPY_CHUNK_BYTES);
      for (let position = 0; ; ) {
        const { bytesRead } = await source.read(buffer, 0, buffer.length, position);
        if (bytesRead === 0) break;
        await target.write(buffer, 0, bytesRead);
        position += bytesRead;
      }
      await target.sync();
    } finally {
      await target.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/**
 * Moves a handed-over file (see {@link FileSource}) to `path` atomically, and checks that
 * what arrived is the file that was opened; across file systems it copies from the handle
 * and then deletes the source. Returns false, moving nothing that stays, when the name was
 * swapped for another file in between.
 *
 * @example
 * ```ts
 * if (!(await moveFileAtomic(source, target))) throw new Error('file changed while it was moved');
 * ```
 */
export async function moveFileAtomic(source: FileSource, path: string): Promise<boolean> {
  try {
    await inFolderOf(path, () => rename(source.path, path));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    await copyFileAtomic(source.handle, path);
    await discardFileSource(source);
    return true;
  }
  const moved = await lstat(path);
  if (moved.ino === source.ino && moved.dev === source.dev) return true;
  await rm(path, { force: true });
  return false;
}
