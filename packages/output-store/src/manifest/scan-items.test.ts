import { describe, expect, it } from 'vitest';
import { BodyScanner, type BodyShape } from './scan-items.js';

/** Scans `text` pushed in pieces of `size` bytes, so items and strings cross chunk borders. */
function scan(text: string | Uint8Array, size = 3, maxItems = 1_000): BodyShape {
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : Buffer.from(text);
  const scanner = new BodyScanner(maxItems);
  for (let start = 0; start < bytes.length; start += size)
    if (!scanner.push(bytes.subarray(start, start + size))) break;
  return scanner.end();
}

function items(text: string, shape: BodyShape): string[] {
  if (shape.kind === 'refused') throw new Error(shape.reason);
  const bytes = Buffer.from(text, 'utf8');
  return shape.spans.starts.map((start, index) =>
    bytes.subarray(start, shape.spans.ends[index]).toString('utf8'),
  );
}

describe('BodyScanner', () => {
  it('finds the non-blank lines, white space around them kept for the reader to trim', () => {
    const text = 'a.ts\n\n  \n b.ts \r\nc.ts';
    const shape = scan(text);
    expect(shape.kind).toBe('lines');
    expect(items(text, shape).map((item) => item.trim())).toEqual(['a.ts', 'b.ts', 'c.ts']);
  });

  it('reads a body that is one JSON array as its elements, whatever the chunk borders', () => {
    const text = ' [ "x,]", {"a": [1, 2]}, 3 ,\n null ] \n';
    for (const size of [1, 2, 5, 64]) {
      const shape = scan(text, size);
      expect(shape.kind).toBe('json-array');
      expect(items(text, shape).map((item) => JSON.parse(item))).toEqual(['x,]', { a: [1, 2] }, 3, null]);
    }
    expect(scan('[]').kind).toBe('json-array');
    expect(items('[]', scan('[]'))).toEqual([]);
  });

  it('reads text that only starts like JSON as lines', () => {
    for (const text of ['[INFO] one\n[WARN] two\n', '[1, oops]\n', '[1,]', '{"a":1}\n{"b":2}\n', '[1] [2]']) {
      expect(scan(text).kind, text).toBe('lines');
    }
  });

  it('refuses one JSON object, binary data and text that is not UTF-8, naming what it is', () => {
    expect(scan('{\n "items": [1, 2]\n}\n')).toEqual({
      kind: 'refused',
      reason: expect.stringMatching(/^one JSON object, not a list/),
    });
    expect(scan(Buffer.from([0x61, 0x0a, 0x00, 0x62]))).toEqual({
      kind: 'refused',
      reason: expect.stringMatching(/^binary data \(a NUL byte at offset 2\)/),
    });
    expect(scan(Buffer.from([0x61, 0x0a, 0xff, 0x62]))).toMatchObject({ reason: /^not UTF-8 text/ });
    expect(scan(Buffer.from([0x61, 0xe2, 0x82]))).toMatchObject({ reason: /ends inside a character/ });
  });

  it('refuses more items than allowed, lines or elements', () => {
    expect(scan('a\nb\nc\n', 3, 2)).toMatchObject({
      kind: 'refused',
      reason: 'more than 2 items (max_items)',
    });
    expect(scan('[1,2,3]', 3, 2)).toMatchObject({
      kind: 'refused',
      reason: /JSON array of more than 2 items/,
    });
    expect(scan('a\nb\n', 3, 2).kind).toBe('lines');
  });

  it('stops reading once a refusal is certain', () => {
    const scanner = new BodyScanner(1);
    expect(scanner.push(Buffer.from('a\nb\nc\n'))).toBe(false);
    expect(scanner.push(Buffer.from('d\n'))).toBe(false);
    expect(scanner.bytes).toBe(6);
  });
});
