import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDataDir } from '@wharf/orchestrator/embedded';
import { openStream } from '@wharf/output-store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliError } from '../cli-error.js';
import type { CliIo } from '../output.js';
import { outputsTail } from './outputs-tail.js';

describe('wharf outputs tail', { timeout: 30_000 }, () => {
  let dir: string;
  const producer = { ownerId: 'default', runId: 'run-1', spawnId: 'task-a' };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-outputs-tail-unit-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  function capture(): { io: CliIo; out: string[]; err: string[]; bytes: Uint8Array[] } {
    const out: string[] = [];
    const err: string[] = [];
    const bytes: Uint8Array[] = [];
    return {
      io: { isTTY: false, out: (text) => out.push(text), err: (text) => err.push(text) },
      out,
      err,
      bytes,
    };
  }

  it('says when a later attempt replaces the one it follows, and prints that one from its start', async () => {
    const data = await openDataDir(join(dir, '.wharf'), { env: {} });
    try {
      const first = await openStream(data.store, { producer, key: 'answer', attempt: 1, flushMs: 10 });
      await first.append('first try, cut short');
      await first.flush();
      const seen = capture();
      const tailing = outputsTail(
        first.stream,
        { dataDir: join(dir, '.wharf'), follow: true, json: false, intervalMs: 10 },
        seen.io,
        (chunk) => seen.bytes.push(chunk),
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      const second = await openStream(data.store, { producer, key: 'answer', attempt: 2, flushMs: 10 });
      await second.append('second try\n');
      await second.seal();
      await tailing;
      expect(Buffer.concat(seen.bytes).toString()).toBe('first try, cut short\nsecond try\n');
      expect(seen.err).toEqual([
        `stream ${first.stream}: attempt 1 is current`,
        `stream ${first.stream}: attempt 1 was abandoned: superseded by attempt 2`,
        `stream ${first.stream}: attempt 2 replaced it (attempt 1 abandoned); its text follows from the start`,
      ]);
      const plain = await data.store.emit({
        producer,
        content: { kind: 'text', text: 'plain' },
        idempotencyKey: 'p',
      });
      const body = capture();
      await outputsTail(plain.outId, { dataDir: join(dir, '.wharf'), follow: false, json: true }, body.io);
      expect(body.out).toEqual([JSON.stringify({ type: 'output', outId: plain.outId, text: 'plain' })]);
    } finally {
      await data.close();
    }
  });

  it('is a NOT_FOUND CliError for an out id nothing is stored under', async () => {
    const error = await outputsTail(
      'out_AAAAAAAAAAAAAAAA',
      { dataDir: join(dir, '.wharf'), follow: false, json: false },
      capture().io,
    ).catch((caught: unknown) => caught);
    expect(CliError.isInstance(error) && error.code).toBe('NOT_FOUND');
  });
});
