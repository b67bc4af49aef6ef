import { describe, expect, it } from 'vitest';
import { emitRequestHeaders } from './emit-request-headers.js';

describe('emitRequestHeaders', () => {
  it('picks the EMIT headers by lower-case name and skips the rest', () => {
    expect(
      emitRequestHeaders([
        'Host',
        'intake:4000',
        'Accept',
        '*/*',
        'IDEMPOTENCY-KEY',
        'k1',
        'X-Wharf-Name',
        '',
        'Content-Length',
        '5',
      ]),
    ).toEqual({ host: 'intake:4000', 'idempotency-key': 'k1', 'x-wharf-name': '', 'content-length': '5' });
  });

  it('declines a repeated EMIT header, whatever its case, but not a repeated other header', () => {
    expect(emitRequestHeaders(['Idempotency-Key', 'a', 'idempotency-key', 'b'])).toBeUndefined();
    expect(emitRequestHeaders(['Authorization', 'Bearer a', 'authorization', 'Bearer a'])).toBeUndefined();
    expect(emitRequestHeaders(['Accept', 'a', 'Accept', 'b', 'Host', 'h'])).toEqual({ host: 'h' });
  });

  it('declines values that Headers would trim', () => {
    for (const value of [' k', 'k ', '\tk', 'k\t', 'k\r', '\nk']) {
      expect(emitRequestHeaders(['Idempotency-Key', value]), JSON.stringify(value)).toBeUndefined();
    }
    expect(emitRequestHeaders(['Idempotency-Key', 'a b'])).toEqual({ 'idempotency-key': 'a b' });
  });
});
