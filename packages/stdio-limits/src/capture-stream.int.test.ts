import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureStream } from './capture-stream.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wharf-stdio-stream-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('captureStream', () => {
  it('captures a file stream with multi-byte text in fixed memory and spills it gzip, round-trip exact', async () => {
    const content = Buffer.from('première ligne €😀\n'.repeat(20_000));
    const source = join(dir, 'source.txt');
    await writeFile(source, content);
    const sizes: number[] = [];
    const capture = await captureStream(createReadStream(source, { highWaterMark: 1001 }), {
      maxBytes: 500,
      strategy: 'both',
      spill: { path: join(dir, 'spill.log.gz'), compress: true, maxBytes: 1 << 30, threshold: 0 },
      onBytes: (total) => sizes.push(total),
    });
    expect(capture.totalBytes).toBe(content.length);
    expect(capture.totalLines).toBe(20_000);
    expect(capture.head.startsWith('première ligne')).toBe(true);
    expect(capture.tail.endsWith('€😀\n')).toBe(true);
    expect(capture.text).not.toContain('\uFFFD');
    expect(sizes.at(-1)).toBe(content.length);
    const stored = gunzipSync(await readFile(join(dir, 'spill.log.gz')));
    expect(stored.equals(content)).toBe(true);
    expect(capture.spill?.sha256).toBe(createHash('sha256').update(content).digest('hex'));
  });
});
