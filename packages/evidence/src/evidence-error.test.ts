import { describe, expect, it } from 'vitest';
import { EvidenceError } from './evidence-error.js';

describe('EvidenceError', () => {
  it('carries a stable code and message', () => {
    const error = new EvidenceError('ARTIFACT_NOT_FOUND', 'something is wrong');
    expect(error.code).toBe('ARTIFACT_NOT_FOUND');
    expect(error.message).toBe('something is wrong');
    expect(error.name).toBe('EvidenceError');
  });

  it('keeps the cause', () => {
    const cause = new Error('root');
    expect(new EvidenceError('ARTIFACT_NOT_FOUND', 'wrapped', { cause }).cause).toBe(cause);
  });

  it('isInstance recognises its own errors and rejects look-alikes', () => {
    expect(EvidenceError.isInstance(new EvidenceError('ARTIFACT_NOT_FOUND', 'x'))).toBe(true);
    expect(EvidenceError.isInstance(new Error('x'))).toBe(false);
    expect(EvidenceError.isInstance({ code: 'ARTIFACT_NOT_FOUND', message: 'x' })).toBe(false);
    expect(EvidenceError.isInstance(null)).toBe(false);
  });

  it('isInstance sees through realms via the registered symbol', () => {
    const foreign = Object.assign(Object.create(null), { [Symbol.for('@wharf/evidence/error')]: true });
    expect(EvidenceError.isInstance(foreign)).toBe(true);
  });
});
