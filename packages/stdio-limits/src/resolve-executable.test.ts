import { describe, expect, it } from 'vitest';
import { resolveExecutable } from './resolve-executable.js';

describe('resolveExecutable', () => {
  it('finds a command on the PATH of the given environment, and nothing that is missing', () => {
    expect(resolveExecutable('sh')).toMatch(/\/sh$/);
    expect(resolveExecutable('sh', { env: { PATH: '/nonexistent' } })).toBeUndefined();
    expect(resolveExecutable('no-such-command-of-wharf')).toBeUndefined();
  });

  it('takes a path with a slash as it is, relative to the working directory', () => {
    expect(resolveExecutable('/bin/sh')).toBe('/bin/sh');
    expect(resolveExecutable('./sh', { cwd: '/bin' })).toBe('/bin/sh');
    expect(resolveExecutable('/etc/passwd')).toBeUndefined();
  });
});
