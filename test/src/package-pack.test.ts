import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Packing a published package as a maintainer would: with npm (refused, loudly) and with pnpm.
const execFileAsync = promisify(execFile);
const packageDir = fileURLToPath(new URL('../../packages/context-resolver', import.meta.url));

async function pack(tool: 'npm' | 'pnpm', destination: string) {
  try {
    const { stdout, stderr } = await execFileAsync(tool, ['pack', '--pack-destination', destination], {
      cwd: packageDir,
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('packing a published package', { timeout: 120_000 }, () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-pack-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('npm pack stops before writing a tarball with workspace: and catalog: versions, and says to use pnpm', async () => {
    const destination = join(dir, 'npm');
    const packed = await pack('npm', destination);
    expect(packed.code).not.toBe(0);
    expect(packed.stderr).toContain(
      '@wharf/context-resolver: pack and publish it with pnpm (`pnpm pack`, `pnpm publish`), not npm.',
    );
    expect(packed.stderr).toContain('"zod": "catalog:"');
    expect(await readdir(destination).catch(() => [])).toEqual([]);
  });

  it('pnpm pack writes real versions', async () => {
    const destination = join(dir, 'pnpm');
    const packed = await pack('pnpm', destination);
    expect(packed.code, packed.stderr).toBe(0);
    const [tarball] = await readdir(destination);
    const { stdout } = await execFileAsync('tar', [
      '-xzOf',
      join(destination, tarball as string),
      'package/package.json',
    ]);
    const manifest = JSON.parse(stdout) as { dependencies: Record<string, string> };
    expect(manifest.dependencies.zod).toMatch(/^\d+\.\d+\.\d+/);
    expect(manifest.dependencies['@wharf/common']).toMatch(/^\d+\.\d+\.\d+/);
    expect(stdout).not.toMatch(/workspace:|catalog:/);
  });
});
