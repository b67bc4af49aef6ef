import { describe, expect, it } from 'vitest';
import { OutputNotFoundError } from './errors.js';
import { InMemoryOutputStore } from './in-memory-output-store.js';
import { readBody } from './read-body.js';

describe('readBody', () => {
  it('reads a whole body or a byte range of it, with the record', async () => {
    const store = new InMemoryOutputStore();
    const ref = await store.emit({
      producer: { ownerId: 'o', runId: 'r', spawnId: 's' },
      content: { kind: 'text', text: 'hello, wharf' },
      idempotencyKey: 'k',
    });
    const whole = await readBody(store, ref);
    expect(whole.bytes.toString('utf8')).toBe('hello, wharf');
    expect([whole.start, whole.end, whole.record.sizeBytes]).toEqual([0, 12, 12]);
    const part = await readBody(store, ref, { start: 7 });
    expect(part.bytes.toString('utf8')).toBe('wharf');
    expect(part.start).toBe(7);
    await expect(readBody(store, { outId: 'out_missing000000' })).rejects.toSatisfy(
      OutputNotFoundError.isNotFound,
    );
  });
});
