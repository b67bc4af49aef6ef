import { describe, expect, it } from 'vitest';
import { parseBearerToken } from './bearer-token.js';

describe('parseBearerToken', () => {
  it('reads the token of the Bearer scheme in any case', () => {
    expect(parseBearerToken('Bearer abc')).toBe('abc');
    expect(parseBearerToken('bearer   abc')).toBe('abc');
    expect(parseBearerToken('BEARER abc')).toBe('abc');
  });

  it('refuses a missing header, another scheme, an empty or spaced token', () => {
    expect(parseBearerToken(undefined)).toBeUndefined();
    expect(parseBearerToken('Basic abc')).toBeUndefined();
    expect(parseBearerToken('Bearer ')).toBeUndefined();
    expect(parseBearerToken('Bearer a b')).toBeUndefined();
  });
});
