import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { openDataDir } from '@wharf/orchestrator/embedded';
import { writeManifest, writeManifestChunk } from '@wharf/output-store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Real `wharf` processes (apps/cli/dist, so `pnpm build` first) reading a stored list.
const execFileAsync = promisify(execFile);
const cli = fileURLToPath(new URL('../../apps/cli/dist/main.js', import.meta.url));

describe('wharf outputs refs', { timeout: 120_000 }, () => {
  let dir: string;
  let manifest: string;
  let plain: string;

  async function wharf(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    try {
      const { stdout, stderr } = await execFileAsync(
        process.execPath,
        [cli, 'outputs', 'refs', '--data-dir', join(dir, 'data'), ...args],
        { cwd: dir, env: { ...process.env, NO_COLOR: '1' }, timeout: 60_000 },
      );
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-outputs-refs-'));
    const data = await openDataDir(join(dir, 'data'));
    try {
      const producer = { ownerId: 'default', runId: 'run-1', spawnId: 'fan.results' };
      const record = (instance: number, outIds: string[]) => ({ instance, status: 'ok', outIds, bytes: 3 });
      const chunks = [
        await writeManifestChunk(data.store, {
          producer,
          idempotencyKey: 'c0',
          entries: [record(0, ['out_a', 'out_b']), record(1, ['out_c'])],
        }),
        await writeManifestChunk(data.store, {
          producer,
          idempotencyKey: 'c1',
          entries: [record(2, ['out_d'])],
        }),
      ];
      manifest = (await writeManifest(data.store, { producer, idempotencyKey: 'm', chunks })).outId;
      plain = (await data.store.emit({ producer, content: { kind: 'text', text: 'x' }, idempotencyKey: 'p' }))
        .outId;
    } finally {
      await data.close();
    }
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("prints every out id a loop's manifest names, in instance order; --records its entries", async () => {
    expect(await wharf([manifest])).toMatchObject({ code: 0, stdout: 'out_a\nout_b\nout_c\nout_d\n' });
    const records = await wharf([manifest, '--records']);
    expect(
      records.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).instance),
    ).toEqual([0, 1, 2]);
  });

  it('prints a plain output’s own id, and refuses records of it or an unknown id', async () => {
    expect(await wharf([plain])).toMatchObject({ code: 0, stdout: `${plain}\n` });
    expect(await wharf([plain, '--records'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('not a stored list'),
    });
    expect(await wharf(['out_AAAAAAAAAAAAAAAA'])).toMatchObject({ code: 3 });
  });
});
