import { describe, expect, it } from 'vitest';
import { intakeHeaders } from './intake-headers.js';

describe('intakeHeaders', () => {
  it('keeps only the headers the intake reads, by lower-case name', () => {
    expect(
      intakeHeaders(['Host', 'a', 'Idempotency-Key', 'k1', 'Accept', '*/*', 'X-Wharf-Name', 'n.md']),
    ).toEqual({ 'idempotency-key': 'k1', 'x-wharf-name': 'n.md' });
  });

  it('trims values and joins a repeated header as Headers does', () => {
    expect(intakeHeaders(['Idempotency-Key', ' k1\t', 'idempotency-key', 'k2'])).toEqual({
      'idempotency-key': 'k1, k2',
    });
    expect(intakeHeaders(['Authorization', 'Bearer a', 'Authorization', 'Bearer a'])).toEqual({
      authorization: 'Bearer a, Bearer a',
    });
    expect(intakeHeaders(['X-Wharf-Name', '   '])).toEqual({ 'x-wharf-name': '' });
  });
});
