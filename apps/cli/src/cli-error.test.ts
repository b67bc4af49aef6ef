import { describe, expect, it } from 'vitest';
import { CliError } from './cli-error.js';

describe('CliError', () => {
  it('carries a stable code and message', () => {
    const error = new CliError('USAGE', 'something is wrong');
    expect(error.code).toBe('USAGE');
    expect(error.message).toBe('something is wrong');
    expect(error.name).toBe('CliError');
  });

  it('keeps the cause', () => {
    const cause = new Error('root');
    expect(new CliError('USAGE', 'wrapped', { cause }).cause).toBe(cause);
  });

  it('isInstance recognises its own errors and rejects look-alikes', () => {
    expect(CliError.isInstance(new CliError('USAGE', 'x'))).toBe(true);
    expect(CliError.isInstance(new Error('x'))).toBe(false);
    expect(CliError.isInstance({ code: 'USAGE', message: 'x' })).toBe(false);
    expect(CliError.isInstance(null)).toBe(false);
  });

  it('isInstance sees through realms via the registered symbol', () => {
    const foreign = Object.assign(Object.create(null), { [Symbol.for('@wharf/cli/error')]: true });
    expect(CliError.isInstance(foreign)).toBe(true);
  });
});
