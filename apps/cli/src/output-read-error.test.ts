import { InvalidOutputEventError, OutputNotFoundError } from '@wharf/output-store';
import { describe, expect, it } from 'vitest';
import { CliError, exitCodes } from './cli-error.js';
import { outputReadCliError } from './output-read-error.js';

describe('outputReadCliError', () => {
  it('makes nothing stored exit 3 and any other refusal of the store exit 2, keeping the message', () => {
    const missing = outputReadCliError(new OutputNotFoundError('out_AAAAAAAAAAAAAAAA', 'unknown'));
    expect(missing?.code).toBe('NOT_FOUND');
    expect(exitCodes[missing?.code ?? 'USAGE']).toBe(3);
    const refused = outputReadCliError(new InvalidOutputEventError('name', 'must not be empty'));
    expect(refused?.code).toBe('USAGE');
    expect(refused?.message).toContain('must not be empty');
    expect(CliError.isInstance(refused)).toBe(true);
  });

  it('leaves any other error alone', () => {
    expect(outputReadCliError(new Error('disk on fire'))).toBeUndefined();
  });
});
