import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { textBytes } from '../metadata.js';
import { cutForDisplay } from './display-cut.js';

describe('cutForDisplay', () => {
  it('leaves a payload within the limit as it is', () => {
    const payload = defaultPayloadConverter.toPayload('short') as Payload;
    expect(cutForDisplay(payload, { limitBytes: 7 })).toEqual({ payload, cutBytes: 0 });
  });

  it('cuts at a UTF-8 boundary and says how many bytes remain and where to read them', () => {
    const payload: Payload = {
      metadata: { encoding: textBytes('binary/plain') },
      data: textBytes('aaé€bbbb'),
    };
    const { payload: cut, cutBytes } = cutForDisplay(payload, {
      limitBytes: 4,
      outId: 'out_AAAAAAAAAAAAAAAA',
    });
    // 'aa' (2) + 'é' (2) fit; '€' (3) would cross the limit.
    expect(cutBytes).toBe(7);
    expect(defaultPayloadConverter.fromPayload(cut)).toBe(
      'aaé\n… 7 bytes more (cut for display; read it whole with: wharf outputs show out_AAAAAAAAAAAAAAAA)',
    );
  });

  it('says so when an inline payload has no output id', () => {
    const payload: Payload = { metadata: {}, data: textBytes('x'.repeat(10)) };
    const text = defaultPayloadConverter.fromPayload<string>(
      cutForDisplay(payload, { limitBytes: 4 }).payload,
    );
    expect(text).toBe('xxxx\n… 6 bytes more (cut for display; the payload is inline in the history)');
  });
});
