import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StreamAccumulator } from './stream-accumulator.js';

const text = fc.string({ unit: fc.constantFrom('a', 'b', '\n', 'é', '€', '😀'), maxLength: 400 });

function chunked(bytes: Buffer, sizes: number[]): Buffer[] {
  const chunks: Buffer[] = [];
  let at = 0;
  for (const size of sizes) {
    if (at >= bytes.length) break;
    chunks.push(bytes.subarray(at, at + size));
    at += size;
  }
  if (at < bytes.length) chunks.push(bytes.subarray(at));
  return chunks;
}

function lines(value: string): number {
  return value.split('\n').length - 1 + (value.length > 0 && !value.endsWith('\n') ? 1 : 0);
}

describe('StreamAccumulator', () => {
  it('keeps a valid UTF-8 head and tail with exact accounting, for any input and chunking', async () => {
    await fc.assert(
      fc.asyncProperty(
        text,
        fc.integer({ min: 0, max: 300 }),
        fc.constantFrom('head', 'tail', 'both', 'summary' as const),
        fc.array(fc.integer({ min: 1, max: 50 })),
        async (content, maxBytes, strategy, sizes) => {
          const bytes = Buffer.from(content);
          const accumulator = new StreamAccumulator({ maxBytes, strategy });
          for (const chunk of chunked(bytes, sizes)) accumulator.write(chunk);
          const capture = await accumulator.finish();
          expect(capture.totalBytes).toBe(bytes.length);
          expect(capture.totalLines).toBe(lines(content));
          if (bytes.length <= maxBytes) {
            expect(capture).toMatchObject({
              truncated: false,
              text: content,
              omittedBytes: 0,
              omitted: null,
            });
            return;
          }
          const head = Buffer.from(capture.head);
          const tail = Buffer.from(capture.tail);
          expect(content.startsWith(capture.head)).toBe(true);
          expect(content.endsWith(capture.tail)).toBe(true);
          expect(head.length + tail.length).toBe(capture.retainedBytes);
          expect(capture.retainedBytes).toBeLessThanOrEqual(maxBytes);
          expect(capture.omittedBytes).toBe(bytes.length - capture.retainedBytes);
          expect(capture.omitted).toEqual({ start: head.length, end: bytes.length - tail.length });
          const omittedText = bytes.subarray(head.length, bytes.length - tail.length).toString();
          expect(capture.omittedLines).toBe(omittedText.split('\n').length - 1);
          if (strategy === 'head') expect(capture.tail).toBe('');
          if (strategy === 'tail') expect(capture.head).toBe('');
          expect(capture.text).toContain(`--- [${capture.omittedBytes} bytes truncated] ---`);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('cuts at a line end near the limit', async () => {
    const accumulator = new StreamAccumulator({ maxBytes: 200, strategy: 'head' });
    for (let line = 0; line < 100; line++) accumulator.write(Buffer.from(`line number ${line}\n`));
    const capture = await accumulator.finish();
    expect(capture.head.endsWith('\n')).toBe(true);
    expect(capture.head.split('\n').at(-2)).toMatch(/^line number \d+$/);
    expect(capture.text.startsWith(`--- Output (showing first ${capture.retainedBytes} bytes of `)).toBe(
      true,
    );
  });

  it('starts the tail on a whole line', async () => {
    const accumulator = new StreamAccumulator({ maxBytes: 200, strategy: 'tail' });
    for (let line = 0; line < 100; line++) accumulator.write(Buffer.from(`line number ${line}\n`));
    const capture = await accumulator.finish();
    expect(capture.tail.startsWith('line number ')).toBe(true);
    expect(capture.tail.endsWith('line number 99\n')).toBe(true);
    expect(
      capture.text.endsWith(`--- Output (showing last ${capture.retainedBytes} bytes of 1490) ---`),
    ).toBe(true);
  });

  it('cuts to a smaller budget when asked (combined limit)', async () => {
    const accumulator = new StreamAccumulator({ maxBytes: 100, strategy: 'tail' });
    accumulator.write(Buffer.from('x'.repeat(60)));
    const capture = await accumulator.finish(40);
    expect(capture).toMatchObject({
      truncated: true,
      retainedBytes: 40,
      omittedBytes: 20,
      tail: 'x'.repeat(40),
    });
  });

  it('keeps memory bounded: 64 MiB through a 1 KiB accumulator', async () => {
    const accumulator = new StreamAccumulator({ maxBytes: 1024, strategy: 'both' });
    const chunk = Buffer.alloc(65_536, 'z');
    for (let index = 0; index < 1024; index++) accumulator.write(chunk);
    const capture = await accumulator.finish();
    expect(capture.totalBytes).toBe(64 * 1024 * 1024);
    expect(capture.retainedBytes).toBe(1024);
  });
});
