import { describe, expect, it } from 'vitest';
import { StoreConnectionError } from '../errors.js';
import { connectionFailure, postgresServer } from './connection-failure.js';

const url = 'postgres://wharf:secret@db.internal:5432/wharf?sslpassword=hidden';

function pgError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

describe('connectionFailure', () => {
  it('names the server (no password) and what it was doing when a connection broke mid-operation', () => {
    const failure = connectionFailure(
      pgError('ECONNRESET', 'read ECONNRESET'),
      url,
      'cannot look up the key',
    );
    expect(StoreConnectionError.isInstance(failure)).toBe(true);
    expect(failure?.problem).toBe('unreachable');
    expect(failure?.message).toBe(
      'cannot use PostgreSQL server postgres://wharf@db.internal:5432/wharf: no server answers (read ECONNRESET) — cannot look up the key',
    );
    expect(failure?.message).not.toContain('secret');
    expect(failure?.message).not.toContain('hidden');
  });

  it('reads a dropped connection without a code by its message', () => {
    const failure = connectionFailure(
      new Error('Connection terminated unexpectedly'),
      url,
      'cannot store output',
    );
    expect(failure?.problem).toBe('unreachable');
  });

  it('tells a stopping server, refused credentials and a missing database apart', () => {
    expect(
      connectionFailure(pgError('57P01', 'terminating connection due to administrator command'), url)
        ?.problem,
    ).toBe('refused');
    expect(connectionFailure(pgError('28P01', 'password authentication failed'), url)?.problem).toBe(
      'credentials',
    );
    expect(connectionFailure(pgError('3D000', 'database "x" does not exist'), url)?.problem).toBe('missing');
  });

  it('leaves an answer of the server alone, a statement timeout included', () => {
    expect(
      connectionFailure(pgError('57014', 'canceling statement due to statement timeout'), url),
    ).toBeUndefined();
    expect(connectionFailure(pgError('23505', 'duplicate key value'), url)).toBeUndefined();
    expect(connectionFailure(new Error('something else'), url)).toBeUndefined();
  });

  it('prints a server without its URL when only a pool was given', () => {
    expect(postgresServer(undefined)).toBe('the PostgreSQL server of the given pool');
  });
});
