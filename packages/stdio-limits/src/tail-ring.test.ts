import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TailRing } from './tail-ring.js';

describe('TailRing', () => {
  it('keeps exactly the last capacity bytes for any sequence of writes', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 300 }),
        fc.array(fc.uint8Array({ maxLength: 200 })),
        (capacity, chunks) => {
          const ring = new TailRing(capacity);
          for (const chunk of chunks) ring.write(chunk);
          const all = Buffer.concat(chunks);
          const expected =
            capacity === 0 ? Buffer.alloc(0) : all.subarray(Math.max(0, all.length - capacity));
          expect(ring.toBuffer().equals(expected)).toBe(true);
          expect(ring.length).toBe(expected.length);
        },
      ),
    );
  });

  it('never allocates beyond its capacity', () => {
    const ring = new TailRing(10);
    ring.write(Buffer.alloc(1000, 1));
    ring.write(Buffer.from('abc'));
    expect(ring.toBuffer().toString('latin1')).toBe('\x01\x01\x01\x01\x01\x01\x01abc');
  });
});
