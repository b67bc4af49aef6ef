import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
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

  it('gzips chunks of any size round-trip exact up to the hard cap', async () => {
    // Small chunks gathered into blocks, large ones passed whole, whether a block is half full
    // or empty when they come, and a cap that falls inside a chunk.
    const sizes = [
      100,
      300 * 1024,
      1,
      600 * 1024,
      ...Array.from({ length: 40 }, () => 17 * 1024),
      256 * 1024,
    ];
    let seed = 1;
    const chunks = sizes.map((size) =>
      Buffer.from(
        Array.from({ length: size }, () => {
          seed = (seed * 1103515245 + 12345) >>> 0;
          return seed >>> 28 === 0 ? 0x0a : 0x61 + (seed >>> 27);
        }),
      ),
    );
    const content = Buffer.concat(chunks);
    const cap = content.length - 200 * 1024 - 3;
    const capture = await captureStream(Readable.from(chunks), {
      maxBytes: 1000,
      spill: { path: join(dir, 'mixed.log.gz'), compress: true, maxBytes: cap, threshold: 0 },
    });
    expect(capture.totalBytes).toBe(content.length);
    const stored = gunzipSync(await readFile(join(dir, 'mixed.log.gz')));
    expect(stored.length).toBe(cap);
    expect(stored.equals(content.subarray(0, cap))).toBe(true);
    expect(capture.spill).toMatchObject({ bytes: cap, capped: true, droppedBytes: content.length - cap });
    expect(capture.spill?.sha256).toBe(createHash('sha256').update(stored).digest('hex'));
  });

  it('reuses gzip blocks only after gzip has read them: a paced stream of distinct bytes round-trips exact', async () => {
    // 40 blocks' worth of chunks that all differ, with pauses so that gzip finishes blocks while
    // later ones are gathered: a block refilled before gzip consumed it would corrupt the file.
    let seed = 7;
    const chunk = () =>
      Buffer.from(
        Array.from({ length: 50 * 1024 }, () => {
          seed = (seed * 1103515245 + 12345) >>> 0;
          return seed >>> 24;
        }),
      );
    const chunks = Array.from({ length: 200 }, chunk);
    async function* paced() {
      for (const [index, bytes] of chunks.entries()) {
        if (index % 3 === 0) await new Promise((resolve) => setTimeout(resolve, 1));
        yield bytes;
      }
    }
    const content = Buffer.concat(chunks);
    const capture = await captureStream(Readable.from(paced()), {
      maxBytes: 1000,
      spill: { path: join(dir, 'paced.log.gz'), compress: true, maxBytes: 1 << 30, threshold: 0 },
    });
    const stored = gunzipSync(await readFile(join(dir, 'paced.log.gz')));
    expect(stored.length).toBe(content.length);
    expect(stored.equals(content)).toBe(true);
    expect(capture.spill?.sha256).toBe(createHash('sha256').update(content).digest('hex'));
  });
});
