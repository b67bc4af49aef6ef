import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  unlinkSync,
} from 'node:fs';
import { copyFile, mkdir, open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ensurePrivateDirectory } from '../private-mode.js';

/** Temp files being written by any store instance of this process. */
const activeTemps = new Set<string>();
const shaPattern = /^[0-9a-f]{64}$/;

/**
 * Whether a process of this id is running (ours or another user's).
 *
 * @example
 * ```ts
 * processAlive(process.pid); // true
 * ```
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function fsyncPath(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function fsyncDirectory(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * The directory of content-addressed body files (`<root>/ab/abcdef…`) and its `tmp/` area.
 * Temp names carry the writer's pid, so a later open can tell a dead writer's leftovers from
 * another live process's work in progress.
 *
 * @example
 * ```ts
 * const blobs = new BlobDirectory('/var/wharf/outputs.db.blobs');
 * blobs.removeDeadTemps();
 * ```
 */
export class BlobDirectory {
  readonly root: string;
  readonly tempDir: string;
  readonly #instance = randomBytes(6).toString('hex');
  #counter = 0;

  constructor(root: string) {
    this.root = root;
    this.tempDir = join(root, 'tmp');
    // Bodies are private whatever the umask: the folder is this store's (or blob store's) own.
    ensurePrivateDirectory(root);
    // Files on their way in are this process's business only.
    mkdirSync(this.tempDir, { recursive: true, mode: 0o700 });
  }

  /** Path of the body file for a SHA-256. */
  pathOf(sha256: string): string {
    return join(this.root, sha256.slice(0, 2), sha256);
  }

  /** A fresh temp path, registered as in use until {@link BlobDirectory.releaseTemp}. */
  claimTemp(): string {
    this.#counter += 1;
    const path = join(this.tempDir, `${process.pid}-${this.#instance}-${this.#counter}.part`);
    activeTemps.add(path);
    return path;
  }

  /** Deletes a temp file (if still there) and forgets it. */
  releaseTemp(path: string): void {
    activeTemps.delete(path);
    rmSync(path, { force: true });
  }

  /**
   * Moves a fully written, fsynced temp file to its content address. When the address is
   * already taken (same bytes stored before) the temp file is simply dropped.
   */
  publish(tempPath: string, sha256: string): void {
    const target = this.pathOf(sha256);
    if (existsSync(target)) {
      this.releaseTemp(tempPath);
      return;
    }
    const directory = join(this.root, sha256.slice(0, 2));
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    renameSync(tempPath, target);
    activeTemps.delete(tempPath);
    fsyncDirectory(directory);
  }

  /**
   * Asynchronous {@link BlobDirectory.publish} of any finished file, not only this
   * directory's own temp files: fsyncs it, renames it to its content address (copying it
   * through a fsynced temp file first when it lives on another file system) and fsyncs the
   * address's folder. An address already taken keeps its file. The source is gone afterwards,
   * stored or not.
   */
  async adopt(sourcePath: string, sha256: string): Promise<void> {
    const target = this.pathOf(sha256);
    try {
      if (existsSync(target)) return;
      await fsyncPath(sourcePath);
      const directory = join(this.root, sha256.slice(0, 2));
      await mkdir(directory, { recursive: true, mode: 0o700 });
      try {
        await rename(sourcePath, target);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
        const temp = this.claimTemp();
        try {
          await copyFile(sourcePath, temp);
          await fsyncPath(temp);
          await rename(temp, target);
        } finally {
          this.releaseTemp(temp);
        }
      }
      fsyncDirectory(directory);
    } finally {
      await rm(sourcePath, { force: true });
    }
  }

  /** Deletes a body file; missing files are fine. */
  remove(sha256: string): void {
    try {
      unlinkSync(this.pathOf(sha256));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }

  /** Deletes temp files whose writer is gone; returns how many. */
  removeDeadTemps(): number {
    let removed = 0;
    for (const name of readdirSync(this.tempDir)) {
      const path = join(this.tempDir, name);
      const pid = Number(name.split('-')[0]);
      const live =
        pid === process.pid ? activeTemps.has(path) : Number.isSafeInteger(pid) && processAlive(pid);
      if (!live) {
        rmSync(path, { force: true });
        removed += 1;
      }
    }
    return removed;
  }

  /** Every SHA-256 that has a body file. */
  storedShas(): string[] {
    const shas: string[] = [];
    for (const prefix of readdirSync(this.root)) {
      if (prefix.length !== 2) continue;
      for (const name of readdirSync(join(this.root, prefix))) {
        if (shaPattern.test(name) && name.startsWith(prefix)) shas.push(name);
      }
    }
    return shas;
  }
}
