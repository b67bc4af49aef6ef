import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDataDir } from '@wharf/orchestrator/embedded';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../output.js';
import { outputsShow } from './inspect.js';

describe('wharf outputs show', { timeout: 30_000 }, () => {
  let dir: string;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-outputs-show-unit-'));
    const data = await openDataDir(join(dir, '.wharf'), { env: {} });
    try {
      for (const [key, text] of Object.entries({ bare: 'no newline at the end', ended: 'one line\n' }))
        ids[key] = (
          await data.store.emit({
            producer: { ownerId: 'default', runId: 'run-1', spawnId: key },
            content: { kind: 'text', text },
            idempotencyKey: key,
          })
        ).outId;
    } finally {
      await data.close();
    }
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function show(key: string, isTTY: boolean): Promise<string> {
    const chunks: Uint8Array[] = [];
    const io: CliIo = { isTTY, out: () => {}, err: () => {} };
    await outputsShow(ids[key] as string, { dataDir: join(dir, '.wharf'), json: false }, io, (chunk) =>
      chunks.push(chunk),
    );
    return Buffer.concat(chunks).toString('utf8');
  }

  it('ends with a newline on a terminal, and writes the bytes as they are elsewhere', async () => {
    expect(await show('bare', true)).toBe('no newline at the end\n');
    expect(await show('ended', true)).toBe('one line\n');
    expect(await show('bare', false)).toBe('no newline at the end');
  });
});
