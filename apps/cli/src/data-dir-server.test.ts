import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectOrRestartDevServer } from './data-dir-server.js';
import type { CliIo } from './output.js';

// What starts a data directory's dev server again is in test/src/cli-list-cancel.e2e.test.ts;
// here, what never does: a server named by --address is the one meant.
describe('connectOrRestartDevServer', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-data-dir-server-'));
    await writeFile(join(dir, 'temporal.db'), '');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('starts nothing when --address names a server that does not answer: exit 4 with the hint', async () => {
    const said: string[] = [];
    const io: CliIo = { isTTY: false, out: () => {}, err: (text) => said.push(text) };
    await expect(
      connectOrRestartDevServer('etl-1', { address: '127.0.0.1:1', dataDir: dir }, io),
    ).rejects.toMatchObject({
      code: 'UNREACHABLE',
      message: expect.stringContaining(`wharf resume etl-1 --data-dir ${dir}`),
    });
    expect(said).toEqual([]);
  });
});
