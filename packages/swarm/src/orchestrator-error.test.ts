import { describe, expect, it } from 'vitest';
import { WharfOrchestratorError } from './orchestrator-error.js';

describe('WharfOrchestratorError', () => {
  it('carries a stable code and message', () => {
    const error = new WharfOrchestratorError('INVALID_DEFINITION', 'something is wrong');
    expect(error.code).toBe('INVALID_DEFINITION');
    expect(error.message).toBe('something is wrong');
    expect(error.name).toBe('WharfOrchestratorError');
  });

  it('keeps the cause', () => {
    const cause = new Error('root');
    expect(new WharfOrchestratorError('INVALID_DEFINITION', 'wrapped', { cause }).cause).toBe(cause);
  });

  it('isInstance recognises its own errors and rejects look-alikes', () => {
    expect(WharfOrchestratorError.isInstance(new WharfOrchestratorError('INVALID_DEFINITION', 'x'))).toBe(
      true,
    );
    expect(WharfOrchestratorError.isInstance(new Error('x'))).toBe(false);
    expect(WharfOrchestratorError.isInstance({ code: 'INVALID_DEFINITION', message: 'x' })).toBe(false);
    expect(WharfOrchestratorError.isInstance(null)).toBe(false);
  });

  it('isInstance sees through realms via the registered symbol', () => {
    const foreign = Object.assign(Object.create(null), { [Symbol.for('@wharf/orchestrator/error')]: true });
    expect(WharfOrchestratorError.isInstance(foreign)).toBe(true);
  });
});
