import { describe, expect, it } from 'vitest';
import { InvalidExpressionError } from './context-resolver-error.js';
import { formatReference, isArrayIndex, parsePath, parseReference, scanReference } from './path.js';

describe('references and paths', () => {
  it('parses kind and dot path, array indices included', () => {
    expect(parseReference('†state.users.0.name')).toEqual({ kind: 'state', path: ['users', '0', 'name'] });
    expect(parseReference('†data')).toEqual({ kind: 'data', path: [] });
    expect(parseReference('†data.naïve_key-2.$x')).toEqual({ kind: 'data', path: ['naïve_key-2', '$x'] });
    expect(parsePath('')).toEqual([]);
    expect(parsePath('a.b')).toEqual(['a', 'b']);
  });

  it('formats back to the same text', () => {
    for (const text of ['†data', '†state.users.0.name'])
      expect(formatReference(parseReference(text))).toBe(text);
  });

  it('rejects malformed references with an INVALID_PATH error and position', () => {
    for (const [text, position] of [
      ['data.a', 0],
      ['†', 1],
      ['†data..a', 6],
      ['†data.a b', 7],
    ] as const) {
      let caught: unknown;
      try {
        parseReference(text);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(InvalidExpressionError);
      expect((caught as InvalidExpressionError).code).toBe('INVALID_PATH');
      expect((caught as InvalidExpressionError).position).toBe(position);
    }
    expect(() => parsePath('a..b')).toThrow(/expected a key/);
  });

  it('lenient scanning stops before a sentence-ending dot', () => {
    const text = 'Hi †data.user.name.';
    expect(scanReference(text, 3, true)).toEqual({
      reference: { kind: 'data', path: ['user', 'name'] },
      end: 18,
    });
  });

  it('knows array indices', () => {
    expect(['0', '7', '12'].every(isArrayIndex)).toBe(true);
    expect(['01', '-1', 'a', '1.5', ''].some(isArrayIndex)).toBe(false);
  });
});
