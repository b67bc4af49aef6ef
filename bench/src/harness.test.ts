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

  it('prints information rows and budget rows in the same table', () => {
    const table = formatTable('demo', [
      { name: 'capped', ours: 40, baseline: 100, target: 'info' },
      { name: 'rss', measured: 16, budget: 64, unit: 'MiB' },
      { name: 'p99', measured: 8, budget: 5, unit: 'ms' },
    ]);
    const lines = table.split('\n');
    expect(lines.find((line) => line.startsWith('capped'))).toMatch(/0\.40\s+info\s+info$/);
    expect(lines.find((line) => line.startsWith('rss'))).toMatch(/16 MiB\s+<= 64 MiB\s+4\.00\s+>= 1\s+ok$/);
    expect(lines.find((line) => line.startsWith('p99'))).toMatch(/8 ms\s+<= 5 ms\s+0\.63\s+>= 1\s+MISS$/);
  });

  it('judges a budget row that measured 0 on its figure alone', () => {
    const table = formatTable('demo', [
      { name: 'lost', measured: 0, budget: 0, unit: 'items' },
      { name: 'lost-some', measured: 2, budget: 0, unit: 'items' },
      { name: 'redone', measured: 0, budget: 32, unit: 'items' },
    ]);
    const lines = table.split('\n');
    expect(lines.find((line) => line.startsWith('lost '))).toMatch(/0 items\s+<= 0 items\s+-\s+>= 1\s+ok$/);
    expect(lines.find((line) => line.startsWith('lost-some'))).toMatch(
      /2 items\s+<= 0 items\s+0\.00\s+>= 1\s+MISS$/,
    );
    expect(lines.find((line) => line.startsWith('redone'))).toMatch(/-\s+>= 1\s+ok$/);
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
