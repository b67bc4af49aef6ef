import { describe, expect, it } from 'vitest';
import { OutputForbiddenError, OutputNotFoundError, StorageFailureError } from './errors.js';
import { OutputStoreError } from './output-store-error.js';

describe('OutputStoreError', () => {
  it('carries a stable code and message', () => {
    const error = new OutputStoreError('NOT_FOUND', 'something is wrong');
    expect(error.code).toBe('NOT_FOUND');
    expect(error.message).toBe('something is wrong');
    expect(error.name).toBe('OutputStoreError');
  });

  it('keeps the cause', () => {
    const cause = new Error('root');
    expect(new OutputStoreError('NOT_FOUND', 'wrapped', { cause }).cause).toBe(cause);
  });

  it('isInstance recognises its own errors and rejects look-alikes', () => {
    expect(OutputStoreError.isInstance(new OutputStoreError('NOT_FOUND', 'x'))).toBe(true);
    expect(OutputStoreError.isInstance(new Error('x'))).toBe(false);
    expect(OutputStoreError.isInstance({ code: 'NOT_FOUND', message: 'x' })).toBe(false);
    expect(OutputStoreError.isInstance(null)).toBe(false);
  });

  it('isInstance sees through realms via the registered symbol', () => {
    const foreign = Object.assign(Object.create(null), { [Symbol.for('@wharf/output-store/error')]: true });
    expect(OutputStoreError.isInstance(foreign)).toBe(true);
  });

  it("a subclass's isInstance recognises only its own kind", () => {
    const notFound = new OutputNotFoundError('out_x', 'deleted');
    const failure = new StorageFailureError('disk full');
    expect(OutputNotFoundError.isInstance(notFound)).toBe(true);
    expect(OutputNotFoundError.isInstance(failure)).toBe(false);
    expect(OutputNotFoundError.isInstance(new OutputForbiddenError('no'))).toBe(false);
    expect(StorageFailureError.isInstance(failure)).toBe(true);
    expect(OutputStoreError.isInstance(failure)).toBe(true);
  });

  it("a subclass's isInstance goes by code, as in every Wharf package (an error rebuilt from an HTTP answer counts)", () => {
    const rebuilt = new OutputStoreError('NOT_FOUND', 'output out_x not found (deleted)');
    expect(OutputNotFoundError.isInstance(rebuilt)).toBe(true);
    expect(OutputForbiddenError.isInstance(rebuilt)).toBe(false);
    const foreign = Object.assign(Object.create(null), {
      [Symbol.for('@wharf/output-store/error')]: true,
      name: 'SomethingElse',
      code: 'STORAGE_FAILURE',
    });
    expect(StorageFailureError.isInstance(foreign)).toBe(true);
  });
});
