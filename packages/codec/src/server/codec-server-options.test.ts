import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { InvalidCodecOptionError } from '../errors.js';
import { KeyRing } from '../key-ring.js';
import { isLoopbackHost, resolveCodecOptions } from './codec-server-options.js';

const keyRing = KeyRing.from([{ id: 'k1', key: randomBytes(32) }]);

describe('isLoopbackHost', () => {
  it('knows loopback names and addresses, with or without a port', () => {
    for (const host of ['127.0.0.1', '127.1.2.3:80', 'localhost', 'localhost:7243', '::1', '[::1]:7243'])
      expect(isLoopbackHost(host)).toBe(true);
    for (const host of ['0.0.0.0', '::', '10.0.0.1', 'example.com', '127.0.0.1.nip.io', '[::]:80', ''])
      expect(isLoopbackHost(host)).toBe(false);
  });
});

describe('resolveCodecOptions', () => {
  it('fills in the defaults', () => {
    expect(resolveCodecOptions({ keyRing })).toMatchObject({
      displayLimitBytes: 256 * 1024,
      maxRequestBytes: 4 * 1024 * 1024,
      maxConcurrentRequests: 8,
      allowedOrigins: [],
    });
  });

  it('refuses a resolver without an owner, a short token, a wildcard origin, a zero limit', () => {
    const resolveReference = async () => {
      throw new Error('unused');
    };
    for (const options of [
      { keyRing, resolveReference },
      { keyRing, auth: { bearerToken: 'short' } },
      { keyRing, allowedOrigins: ['*'] },
      { keyRing, allowedOrigins: ['http://ui.example/'] },
      { keyRing, maxRequestBytes: 0 },
    ])
      expect(() => resolveCodecOptions(options)).toThrow(InvalidCodecOptionError);
  });
});
