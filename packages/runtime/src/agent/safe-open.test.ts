import { execFileSync } from 'node:child_process';
import { link, mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WharfOrchestratorError } from '@wharf/swarm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openInWorkdir, readRange, type WorkdirAccess } from './safe-open.js';

// Both walks: through /proc/self/fd (Linux) and by path (the weaker walk of other systems).
describe.each([
  { walk: 'from directory handles', procFd: true },
  { walk: 'by path', procFd: false },
])('openInWorkdir, $walk', ({ procFd }) => {
  let dir: string;
  let root: string;
  beforeEach(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), 'wharf-safe-open-')));
    root = join(dir, 'work');
    await mkdir(join(root, 'src'), { recursive: true });
    await writeFile(join(root, 'src', 'a.txt'), 'inside');
    await writeFile(join(dir, 'secret.txt'), 'secret');
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function content(path: string): Promise<string> {
    const file = await openInWorkdir(root, path, 'read', { procFd });
    try {
      return (await readRange(file.handle, 0, file.size)).toString('utf8');
    } finally {
      await file.handle.close();
    }
  }

  async function write(path: string, text: string, access: WorkdirAccess = 'write'): Promise<void> {
    const file = await openInWorkdir(root, path, access, { procFd });
    try {
      await file.handle.writeFile(text);
    } finally {
      await file.handle.close();
    }
  }

  async function codeOf(run: Promise<unknown>): Promise<string | undefined> {
    const error = await run.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    return WharfOrchestratorError.isInstance(error) ? error.code : String(error);
  }

  it('reads and writes files inside, by relative or absolute path, creating missing directories', async () => {
    expect(await content('src/a.txt')).toBe('inside');
    expect(await content(join(root, 'src/./a.txt'))).toBe('inside');
    expect(await content('src/../src/a.txt')).toBe('inside');
    await write('new/deep/b.txt', 'one');
    await write('new/deep/b.txt', '+two', 'append');
    expect(await readFile(join(root, 'new/deep/b.txt'), 'utf8')).toBe('one+two');
    await write('new/deep/b.txt', 'x');
    expect(await readFile(join(root, 'new/deep/b.txt'), 'utf8')).toBe('x');
  });

  it('refuses .. escapes and absolute paths elsewhere with PATH_OUTSIDE_WORKDIR, naming the path', async () => {
    for (const path of ['../secret.txt', 'src/../../secret.txt', join(dir, 'secret.txt'), '/etc/passwd']) {
      const error = await openInWorkdir(root, path, 'read', { procFd }).catch((caught: unknown) => caught);
      expect(WharfOrchestratorError.isInstance(error) && error.code).toBe('PATH_OUTSIDE_WORKDIR');
      expect((error as Error).message).toContain(path);
    }
    expect(await codeOf(openInWorkdir(root, '../escape.txt', 'write', { procFd }))).toBe(
      'PATH_OUTSIDE_WORKDIR',
    );
  });

  it('refuses symbolic links that lead outside, to a file or through a directory, for reads and writes', async () => {
    await symlink(join(dir, 'secret.txt'), join(root, 'link.txt'));
    await symlink(dir, join(root, 'up'));
    await symlink('../../secret.txt', join(root, 'src', 'relative.txt'));
    for (const path of ['link.txt', 'up/secret.txt', 'up/new-file.txt', 'src/relative.txt']) {
      expect(await codeOf(openInWorkdir(root, path, 'read', { procFd }))).toBe('PATH_OUTSIDE_WORKDIR');
      expect(await codeOf(openInWorkdir(root, path, 'append', { procFd }))).toBe('PATH_OUTSIDE_WORKDIR');
    }
    expect(await readFile(join(dir, 'secret.txt'), 'utf8')).toBe('secret');
    await expect(readFile(join(dir, 'new-file.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('follows symbolic links that stay inside, absolute or relative, and stops at link loops', async () => {
    await symlink(join(root, 'src'), join(root, 'code'));
    await symlink('src/a.txt', join(root, 'alias.txt'));
    expect(await content('code/a.txt')).toBe('inside');
    expect(await content('alias.txt')).toBe('inside');
    await write('code/c.txt', 'via link');
    expect(await readFile(join(root, 'src/c.txt'), 'utf8')).toBe('via link');
    await symlink('loop-b', join(root, 'loop-a'));
    await symlink('loop-a', join(root, 'loop-b'));
    expect(await codeOf(openInWorkdir(root, 'loop-a', 'read', { procFd }))).toBe('PATH_OUTSIDE_WORKDIR');
  });

  it('refuses a file with other hard links, for reads and writes, and leaves it as it was', async () => {
    await link(join(dir, 'secret.txt'), join(root, 'hard.txt'));
    for (const access of ['read', 'write', 'append'] as const) {
      const error = await openInWorkdir(root, 'hard.txt', access, { procFd }).catch(
        (caught: unknown) => caught,
      );
      expect(WharfOrchestratorError.isInstance(error) && error.code).toBe('PATH_OUTSIDE_WORKDIR');
      expect((error as Error).message).toContain('hard links');
    }
    expect(await readFile(join(dir, 'secret.txt'), 'utf8')).toBe('secret');
  });

  it('refuses FIFOs, directories and the work directory itself with NOT_A_REGULAR_FILE, without blocking', async () => {
    execFileSync('mkfifo', [join(root, 'pipe')]);
    for (const access of ['read', 'write', 'append'] as const) {
      expect(await codeOf(openInWorkdir(root, 'pipe', access, { procFd }))).toBe('NOT_A_REGULAR_FILE');
    }
    expect(await codeOf(openInWorkdir(root, 'src', 'read', { procFd }))).toBe('NOT_A_REGULAR_FILE');
    expect(await codeOf(openInWorkdir(root, 'src', 'write', { procFd }))).toBe('NOT_A_REGULAR_FILE');
    expect(await codeOf(openInWorkdir(root, '.', 'read', { procFd }))).toBe('NOT_A_REGULAR_FILE');
    expect(await codeOf(openInWorkdir(root, 'src/a.txt/b', 'write', { procFd }))).toBe('NOT_A_REGULAR_FILE');
  });

  it('says FILE_NOT_FOUND for a missing file or directory to read', async () => {
    expect(await codeOf(openInWorkdir(root, 'nothing.txt', 'read', { procFd }))).toBe('FILE_NOT_FOUND');
    expect(await codeOf(openInWorkdir(root, 'no/where.txt', 'read', { procFd }))).toBe('FILE_NOT_FOUND');
  });
});

describe('readRange', () => {
  it('reads the bytes asked for, fewer at the end of the file', async () => {
    const dir = await realpath(await mkdtemp(join(tmpdir(), 'wharf-read-range-')));
    try {
      await writeFile(join(dir, 'f.txt'), '0123456789');
      const file = await openInWorkdir(dir, 'f.txt', 'read');
      try {
        expect((await readRange(file.handle, 2, 5)).toString()).toBe('234');
        expect((await readRange(file.handle, 8, 20)).toString()).toBe('89');
        expect((await readRange(file.handle, 10, 10)).length).toBe(0);
      } finally {
        await file.handle.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
