import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WharfOrchestratorError } from '../orchestrator-error.js';
import { confinePath } from './confine-path.js';

describe('confinePath', () => {
  let dir: string;
  let root: string;
  beforeEach(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), 'wharf-confine-')));
    root = join(dir, 'work');
    await mkdir(join(root, 'src'), { recursive: true });
    await writeFile(join(dir, 'secret.txt'), 'secret');
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const refusal = (path: string) =>
    confinePath(root, path).then(
      () => undefined,
      (error: unknown) => error,
    );

  it('resolves paths inside the work directory, existing or not', async () => {
    expect(await confinePath(root, 'src/index.ts')).toBe(join(root, 'src/index.ts'));
    expect(await confinePath(root, 'new/dir/file.txt')).toBe(join(root, 'new/dir/file.txt'));
    expect(await confinePath(root, join(root, 'src'))).toBe(join(root, 'src'));
  });

  it('refuses .. escapes and absolute paths elsewhere with PATH_OUTSIDE_WORKDIR', async () => {
    for (const path of ['../secret.txt', 'src/../../secret.txt', join(dir, 'secret.txt'), '/etc/passwd']) {
      const error = await refusal(path);
      expect(WharfOrchestratorError.isInstance(error) && error.code).toBe('PATH_OUTSIDE_WORKDIR');
      expect((error as Error).message).toContain(path);
    }
  });

  it('refuses symbolic links that lead outside, to a file or through a directory', async () => {
    await symlink(join(dir, 'secret.txt'), join(root, 'link.txt'));
    await symlink(dir, join(root, 'up'));
    for (const path of ['link.txt', 'up/secret.txt', 'up/new-file.txt']) {
      const error = await refusal(path);
      expect(WharfOrchestratorError.isInstance(error) && error.code).toBe('PATH_OUTSIDE_WORKDIR');
    }
  });

  it('follows symbolic links that stay inside', async () => {
    await symlink(join(root, 'src'), join(root, 'code'));
    expect(await confinePath(root, 'code/a.ts')).toBe(join(root, 'src/a.ts'));
  });
});
