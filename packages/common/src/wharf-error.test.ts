import { describe, expect, it } from 'vitest';
import { codeGuard, errorGuard, WharfError, type WharfErrorOptions } from './wharf-error.js';

type ParserErrorCode = 'INVALID_TOKEN' | 'TOO_DEEP' | 'TOO_LONG';
const parserMarker = Symbol.for('@wharf/test-parser/error');

class ParserError extends WharfError<ParserErrorCode> {
  constructor(code: ParserErrorCode, message: string, options?: WharfErrorOptions) {
    super(parserMarker, code, message, options);
    this.name = 'ParserError';
  }
  static override readonly isInstance = errorGuard<ParserError>(parserMarker);
}

class TooBigError extends ParserError {
  readonly limit: number;
  constructor(code: 'TOO_DEEP' | 'TOO_LONG', limit: number) {
    super(code, `over the limit of ${limit}`);
    this.name = 'TooBigError';
    this.limit = limit;
  }
  static override readonly isInstance = codeGuard<TooBigError>(ParserError, 'TOO_DEEP', 'TOO_LONG');
}

const otherMarker = Symbol.for('@wharf/test-other/error');

class OtherError extends WharfError<'INVALID_TOKEN'> {
  constructor(message: string) {
    super(otherMarker, 'INVALID_TOKEN', message);
    this.name = 'OtherError';
  }
  static override readonly isInstance = errorGuard<OtherError>(otherMarker);
}

describe('WharfError', () => {
  it('keeps the code, message, cause and the name its package gives', () => {
    const cause = new Error('root');
    const error = new ParserError('INVALID_TOKEN', 'unexpected "}"', { cause });
    expect(error).toBeInstanceOf(Error);
    expect(error.code).toBe('INVALID_TOKEN');
    expect(error.message).toBe('unexpected "}"');
    expect(error.name).toBe('ParserError');
    expect(error.cause).toBe(cause);
    expect(String(error)).toBe('ParserError: unexpected "}"');
    expect('cause' in new ParserError('INVALID_TOKEN', 'x')).toBe(false);
  });

  it("a package's isInstance takes its own errors only", () => {
    const parser = new ParserError('INVALID_TOKEN', 'x');
    const other = new OtherError('x');
    expect(ParserError.isInstance(parser)).toBe(true);
    expect(ParserError.isInstance(new TooBigError('TOO_DEEP', 64))).toBe(true);
    expect(ParserError.isInstance(other)).toBe(false);
    expect(OtherError.isInstance(parser)).toBe(false);
    expect(ParserError.isInstance(new Error('x'))).toBe(false);
    expect(ParserError.isInstance({ code: 'INVALID_TOKEN', message: 'x', name: 'ParserError' })).toBe(false);
    expect(ParserError.isInstance(null)).toBe(false);
    expect(ParserError.isInstance('ParserError')).toBe(false);
  });

  it('WharfError.isInstance takes the errors of every package', () => {
    expect(WharfError.isInstance(new ParserError('TOO_LONG', 'x'))).toBe(true);
    expect(WharfError.isInstance(new OtherError('x'))).toBe(true);
    expect(WharfError.isInstance(new Error('x'))).toBe(false);
  });

  it('a subclass goes by code, so an error rebuilt from its code counts', () => {
    expect(TooBigError.isInstance(new TooBigError('TOO_LONG', 10))).toBe(true);
    expect(TooBigError.isInstance(new ParserError('TOO_DEEP', 'rebuilt'))).toBe(true);
    expect(TooBigError.isInstance(new ParserError('INVALID_TOKEN', 'x'))).toBe(false);
    // Another package's error with a listed code is not one.
    expect(TooBigError.isInstance(Object.assign(new OtherError('x'), { code: 'TOO_DEEP' }))).toBe(false);
  });

  it("takes only codes of the subclass's own union", () => {
    // @ts-expect-error: 'NOT_A_CODE' is not a ParserErrorCode
    const isNothing = codeGuard<TooBigError>(ParserError, 'NOT_A_CODE');
    expect(isNothing(new ParserError('TOO_DEEP', 'x'))).toBe(false);
  });

  it('recognises errors made in another realm by their registered markers, not by class', () => {
    const foreign = Object.assign(Object.create(null), {
      [Symbol.for('@wharf/test-parser/error')]: true,
      code: 'TOO_DEEP',
      message: 'from the workflow sandbox',
    });
    expect(foreign instanceof ParserError).toBe(false);
    expect(ParserError.isInstance(foreign)).toBe(true);
    expect(TooBigError.isInstance(foreign)).toBe(true);
    expect(OtherError.isInstance(foreign)).toBe(false);
  });

  it('the markers are not enumerable, so they stay out of JSON and spreads', () => {
    const error = new TooBigError('TOO_DEEP', 64);
    expect(Object.getOwnPropertySymbols(error)).toHaveLength(2);
    expect(Object.getOwnPropertySymbols({ ...error })).toEqual([]);
    expect(JSON.parse(JSON.stringify(error))).toEqual({ code: 'TOO_DEEP', limit: 64, name: 'TooBigError' });
  });

  it('works detached, as a callback', () => {
    const errors = [new ParserError('INVALID_TOKEN', 'x'), new Error('y'), new TooBigError('TOO_DEEP', 1)];
    expect(errors.filter(ParserError.isInstance)).toHaveLength(2);
    expect(errors.filter(TooBigError.isInstance)).toHaveLength(1);
  });
});
