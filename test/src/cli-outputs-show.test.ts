import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDataDir } from '@wharf/orchestrator/embedded';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runWharf } from './wharf-cli.js';

// Real `wharf outputs show` processes (apps/cli/dist: `pnpm build` first) on a data directory's store.
describe('wharf outputs show --range', { timeout: 60_000 }, () => {
  let dir: string;
  let outId: string;
  const body = Array.from({ length: 600 }, (_, index) => String.fromCharCode(97 + (index % 26))).join('');
  const show = (range: string) =>
    runWharf(['outputs', 'show', outId, '--range', range, '--data-dir', '.wharf'], dir);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-outputs-show-'));
    const data = await openDataDir(join(dir, '.wharf'), { env: {} });
    try {
      const ref = await data.store.emit({
        producer: { ownerId: 'default', runId: 'run-1', spawnId: 'task-a' },
        content: { kind: 'text', text: body },
        idempotencyKey: 'body',
        name: 'body.txt',
      });
      outId = ref.outId;
    } finally {
      await data.close();
    }
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('gives the bytes that exist when the range ends past the body', async () => {
    const whole = await show('0-1500');
    expect(whole.code, whole.stderr).toBe(0);
    expect(whole.stdout).toBe(body);
    const tail = await show('550-100000');
    expect(tail.code, tail.stderr).toBe(0);
    expect(tail.stdout).toBe(body.slice(550));
    expect((await show('100-200')).stdout).toBe(body.slice(100, 200));
    expect((await show('590-')).stdout).toBe(body.slice(590));
  });

  it('refuses a range that starts past the end, naming the output and its size', async () => {
    const past = await show('600-700');
    expect(past.code).toBe(2);
    expect(past.stdout).toBe('');
    expect(past.stderr).toContain(
      `--range starts at byte 600, past the end of ${outId} (600 B; bytes 0-600 exist)`,
    );
  });
});
