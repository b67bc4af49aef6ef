import { describe, expect, it } from 'vitest';
import { StdioLimitsError } from './stdio-limits-error.js';

describe('StdioLimitsError', () => {
  it('carries a stable code and message', () => {
    const error = new StdioLimitsError('INVALID_LIMITS', 'something is wrong');
    expect(error.code).toBe('INVALID_LIMITS');
    expect(error.message).toBe('something is wrong');
    expect(error.name).toBe('StdioLimitsError');
  });

  it('keeps the cause', () => {
    const cause = new Error('root');
    expect(new StdioLimitsError('INVALID_LIMITS', 'wrapped', { cause }).cause).toBe(cause);
  });

  it('isInstance recognises its own errors and rejects look-alikes', () => {
    expect(StdioLimitsError.isInstance(new StdioLimitsError('INVALID_LIMITS', 'x'))).toBe(true);
    expect(StdioLimitsError.isInstance(new Error('x'))).toBe(false);
    expect(StdioLimitsError.isInstance({ code: 'INVALID_LIMITS', message: 'x' })).toBe(false);
    expect(StdioLimitsError.isInstance(null)).toBe(false);
  });

  it('isInstance sees through realms via the registered symbol', () => {
    const foreign = Object.assign(Object.create(null), { [Symbol.for('@wharf/stdio-limits/error')]: true });
    expect(StdioLimitsError.isInstance(foreign)).toBe(true);
  });
});
