import { describe, expect, it } from 'vitest';
import { emitKey } from './emit-key.js';

describe('emitKey', () => {
  const base = 'wf-1/run-a/7/script';

  it('gives a retried EMIT of the same body, name and type the same key, and another body another', () => {
    const first = emitKey({ base, body: 'alpha', name: 'a.txt', sequence: 0 });
    expect(first).toMatch(/^wf-1\/run-a\/7\/script\/sha256\/[0-9a-f]{40}$/);
    expect(emitKey({ base, body: 'alpha', name: 'a.txt', sequence: 5 })).toBe(first);
    expect(emitKey({ base, body: 'beta', name: 'a.txt', sequence: 0 })).not.toBe(first);
    expect(emitKey({ base, body: 'alpha', name: 'b.txt', sequence: 0 })).not.toBe(first);
  });

  it('scopes a chosen key by the base, numbers streamed bodies, and leaves keys alone outside a spawn', () => {
    expect(emitKey({ base, key: 'report', sequence: 0 })).toBe(`${base}/key/report`);
    expect(emitKey({ base, sequence: 2 })).toBe(`${base}/seq/2`);
    expect(emitKey({ base: undefined, key: 'report', sequence: 0 })).toBe('report');
    expect(emitKey({ base: undefined, body: 'alpha', sequence: 0 })).toBeUndefined();
  });
});
