import { describe, expect, it } from 'vitest';
import { clampRange } from './clamp-range.js';
import { CliError } from './cli-error.js';

describe('clampRange', () => {
  it('stops a range at the end of the body, as HTTP does', () => {
    expect(clampRange({ start: 0, end: 1500 }, 600, 'out_1')).toEqual({ start: 0, end: 600 });
    expect(clampRange({ start: 550 }, 600, 'out_1')).toEqual({ start: 550, end: 600 });
    expect(clampRange({ end: 100 }, 600, 'out_1')).toEqual({ start: 0, end: 100 });
    expect(clampRange({ start: 100, end: 200 }, 600, 'out_1')).toEqual({ start: 100, end: 200 });
    expect(clampRange({ start: 0, end: 10 }, 0, 'out_empty')).toEqual({ start: 0, end: 0 });
  });

  it('refuses a range that starts past the end, naming the output and its size', () => {
    for (const start of [600, 601, 10_000]) {
      let error: unknown;
      try {
        clampRange({ start, end: start + 10 }, 600, 'out_1');
      } catch (caught) {
        error = caught;
      }
      expect(CliError.isInstance(error) && error.code).toBe('USAGE');
      expect((error as Error).message).toBe(
        `--range starts at byte ${start}, past the end of out_1 (600 B; bytes 0-600 exist)`,
      );
    }
  });
});
