import { describe, expect, it } from 'vitest';
import { formatRate, formatTable, measure } from './harness.js';

describe('bench harness', () => {
  it('formats rates with units', () => {
    expect(formatRate(1_234_567)).toBe('1.23M');
    expect(formatRate(4_500)).toBe('4.5k');
    expect(formatRate(12)).toBe('12.0');
  });

  it('prints ratios and flags rows below target', () => {
    const table = formatTable('demo', [
      { name: 'fast', ours: 200, baseline: 100, target: 1 },
      { name: 'slow', ours: 40, baseline: 100, target: 0.5 },
    ]);
    const lines = table.split('\n');
    expect(lines[0]).toBe('## demo');
    expect(lines.find((line) => line.startsWith('fast'))).toMatch(/2\.00\s+>= 1\s+ok/);
    expect(lines.find((line) => line.startsWith('slow'))).toMatch(/0\.40\s+>= 0\.5\s+MISS/);
  });

  it('measures the best of several rounds', async () => {
    let calls = 0;
    const result = await measure(
      10,
      () => {
        calls += 1;
      },
      2,
    );
    expect(calls).toBe(3);
    expect(result.operations).toBe(10);
    expect(result.opsPerSecond).toBeGreaterThan(0);
  });
});
