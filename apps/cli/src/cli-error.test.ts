import { describe, expect, it } from 'vitest';
import { CliError, exitCodes } from './cli-error.js';

describe('CliError', () => {
  it('carries a stable code, message and exit code', () => {
    const error = new CliError('USAGE', 'bad flag');
    expect(error.code).toBe('USAGE');
    expect(error.message).toBe('bad flag');
    expect(error.exitCode).toBe(2);
    expect(new CliError('SWARM_FAILED', 'x').exitCode).toBe(1);
  });

  it('gives every code a distinct non-zero exit code family', () => {
    for (const code of Object.values(exitCodes)) expect(code).toBeGreaterThan(0);
  });

  it('isInstance recognises its own errors and rejects look-alikes', () => {
    expect(CliError.isInstance(new CliError('NOT_FOUND', 'x'))).toBe(true);
    expect(CliError.isInstance(new Error('x'))).toBe(false);
    expect(CliError.isInstance({ code: 'USAGE', message: 'x' })).toBe(false);
  });
});
