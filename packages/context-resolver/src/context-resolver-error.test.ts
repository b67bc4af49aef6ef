import { describe, expect, it } from 'vitest';
import { ContextResolverError, InvalidExpressionError, TypeMismatchError } from './context-resolver-error.js';

describe('ContextResolverError', () => {
  it('carries a stable code and message', () => {
    const error = new ContextResolverError('INVALID_PATH', 'something is wrong');
    expect(error.code).toBe('INVALID_PATH');
    expect(error.message).toBe('something is wrong');
    expect(error.name).toBe('ContextResolverError');
  });

  it('keeps the cause', () => {
    const cause = new Error('root');
    expect(new ContextResolverError('INVALID_PATH', 'wrapped', { cause }).cause).toBe(cause);
  });

  it('isInstance recognises its own errors and rejects look-alikes', () => {
    expect(ContextResolverError.isInstance(new ContextResolverError('INVALID_PATH', 'x'))).toBe(true);
    expect(ContextResolverError.isInstance(new Error('x'))).toBe(false);
    expect(ContextResolverError.isInstance({ code: 'INVALID_PATH', message: 'x' })).toBe(false);
    expect(ContextResolverError.isInstance(null)).toBe(false);
  });

  it('isInstance sees through realms via the registered symbol', () => {
    const foreign = Object.assign(Object.create(null), {
      [Symbol.for('@wharf/context-resolver/error')]: true,
    });
    expect(ContextResolverError.isInstance(foreign)).toBe(true);
  });

  it("a subclass's isInstance recognises only its own kind", () => {
    const expression = new InvalidExpressionError({
      expression: '†a ||',
      position: 5,
      expected: 'a reference',
    });
    expect(InvalidExpressionError.isInstance(expression)).toBe(true);
    expect(TypeMismatchError.isInstance(expression)).toBe(false);
    expect(ContextResolverError.isInstance(expression)).toBe(true);
  });
});
