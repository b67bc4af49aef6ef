import { describe, expect, it } from 'vitest';
import { WorkerConfigError } from './worker-config-error.js';

describe('WorkerConfigError', () => {
  it('carries a stable code and message', () => {
    const error = new WorkerConfigError('INVALID_ENV', 'something is wrong');
    expect(error.code).toBe('INVALID_ENV');
    expect(error.message).toBe('something is wrong');
    expect(error.name).toBe('WorkerConfigError');
  });

  it('keeps the cause', () => {
    const cause = new Error('root');
    expect(new WorkerConfigError('INVALID_ENV', 'wrapped', { cause }).cause).toBe(cause);
  });

  it('isInstance recognises its own errors and rejects look-alikes', () => {
    expect(WorkerConfigError.isInstance(new WorkerConfigError('INVALID_ENV', 'x'))).toBe(true);
    expect(WorkerConfigError.isInstance(new Error('x'))).toBe(false);
    expect(WorkerConfigError.isInstance({ code: 'INVALID_ENV', message: 'x' })).toBe(false);
    expect(WorkerConfigError.isInstance(null)).toBe(false);
  });

  it('isInstance sees through realms via the registered symbol', () => {
    const foreign = Object.assign(Object.create(null), { [Symbol.for('@wharf/worker/error')]: true });
    expect(WorkerConfigError.isInstance(foreign)).toBe(true);
  });
});
