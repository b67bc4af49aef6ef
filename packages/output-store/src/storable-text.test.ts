import { describe, expect, it } from 'vitest';
import { storableText, unstorableReason } from './storable-text.js';

describe('unstorableReason', () => {
  it('refuses NUL and lone surrogates, keeps pairs and ordinary text', () => {
    expect(unstorableReason('a\u0000b')).toBe('must not contain a NUL character');
    expect(unstorableReason('\ud800')).toBe('must be well-formed Unicode (no lone surrogate)');
    expect(unstorableReason('x\udc00')).toBe('must be well-formed Unicode (no lone surrogate)');
    expect(unstorableReason('\udc00\ud800')).toBe('must be well-formed Unicode (no lone surrogate)');
    expect(unstorableReason('😀 run-1 ünïcode')).toBeUndefined();
    expect(unstorableReason('')).toBeUndefined();
  });

  it('backs a zod schema that keeps its length bounds', () => {
    const schema = storableText(1, 4);
    expect(schema.safeParse('ok').success).toBe(true);
    expect(schema.safeParse('').success).toBe(false);
    expect(schema.safeParse('toolong').success).toBe(false);
    const refused = schema.safeParse('a\u0000');
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]?.message).toBe('must not contain a NUL character');
  });
});
