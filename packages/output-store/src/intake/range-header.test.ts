import { describe, expect, it } from 'vitest';
import { parseRangeHeader } from './range-header.js';

describe('parseRangeHeader', () => {
  it('reads first-last, open-ended and suffix ranges', () => {
    expect(parseRangeHeader('bytes=0-99', 1000)).toEqual({ kind: 'partial', start: 0, end: 100 });
    expect(parseRangeHeader('bytes=900-', 1000)).toEqual({ kind: 'partial', start: 900, end: 1000 });
    expect(parseRangeHeader('bytes=-10', 1000)).toEqual({ kind: 'partial', start: 990, end: 1000 });
    expect(parseRangeHeader('bytes=990-5000', 1000)).toEqual({ kind: 'partial', start: 990, end: 1000 });
  });

  it('serves the full body for absent, malformed and multi-range headers', () => {
    expect(parseRangeHeader(undefined, 10)).toEqual({ kind: 'full' });
    expect(parseRangeHeader('items=1-2', 10)).toEqual({ kind: 'full' });
    expect(parseRangeHeader('bytes=0-1,4-5', 10)).toEqual({ kind: 'full' });
  });

  it('marks ranges outside the body unsatisfiable', () => {
    expect(parseRangeHeader('bytes=10-', 10)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRangeHeader('bytes=5-2', 10)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRangeHeader('bytes=-0', 10)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRangeHeader('bytes=-5', 0)).toEqual({ kind: 'unsatisfiable' });
  });
});
