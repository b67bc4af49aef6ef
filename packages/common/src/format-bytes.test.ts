import { describe, expect, it } from 'vitest';
import { formatBytes } from './format-bytes.js';

describe('formatBytes', () => {
  it('writes powers of 1024 with one decimal below ten', () => {
    expect([0, 523, 1_024, 1_536, 46_080, 10_695_475, 104_857_600, 5 * 1024 ** 4].map(formatBytes)).toEqual([
      '0 B',
      '523 B',
      '1KB',
      '1.5KB',
      '45KB',
      '10MB',
      '100MB',
      '5TB',
    ]);
  });

  it('stays in terabytes past them', () => {
    expect(formatBytes(2048 * 1024 ** 4)).toBe('2048TB');
  });
});
