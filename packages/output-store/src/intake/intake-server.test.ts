import { describe, expect, it } from 'vitest';
import { InMemoryOutputStore } from '../in-memory-output-store.js';
import { nodeServerTimeouts } from './intake-server.js';

const base = { store: new InMemoryOutputStore(), secret: 'intake-server-unit-secret-with-enough-bytes' };

describe('nodeServerTimeouts', () => {
  it('sets no whole-request deadline by default: a slow but moving upload is cut by its pace, not at 60 s', () => {
    expect(nodeServerTimeouts(base)).toMatchObject({
      requestTimeout: 0,
      headersTimeout: 10_000,
      idleTimeout: 15_000,
    });
  });

  it('keeps a requestTimeoutMs given as a ceiling, with the headers deadline within it', () => {
    expect(nodeServerTimeouts({ ...base, requestTimeoutMs: 300 })).toMatchObject({
      requestTimeout: 300,
      headersTimeout: 300,
    });
  });
});
