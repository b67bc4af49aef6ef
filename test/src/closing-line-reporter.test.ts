import { describe, expect, it } from 'vitest';
import type { TestModule } from 'vitest/node';
import { addCounts, closingLine, countTests, parseClosingLine } from './closing-line-reporter.js';

/** A finished module holding tests in the given states (the part of TestModule the count reads). */
function moduleOf(...states: string[]): TestModule {
  const tests = states.map((state) => ({ result: () => ({ state }) }));
  return { children: { allTests: () => tests.values() } } as unknown as TestModule;
}

describe('closing line', () => {
  it('counts passed, failed and skipped tests over every module', () => {
    const counts = countTests([
      moduleOf('passed', 'passed', 'skipped'),
      moduleOf('failed', 'passed', 'pending'),
    ]);
    expect(counts).toEqual({ passed: 3, failed: 1, skipped: 2 });
    expect(closingLine(counts)).toBe('3 passed, 1 failed, 2 skipped');
  });

  it('says 0 passed for a run that executed no test', () => {
    expect(closingLine(countTests([]))).toBe('0 passed, 0 failed, 0 skipped');
  });

  it('reads a closing line back and adds the lines of several runs into one', () => {
    const runs = ['3 passed, 0 failed, 1 skipped', '10 passed, 2 failed, 0 skipped'].map(parseClosingLine);
    expect(runs).toEqual([
      { passed: 3, failed: 0, skipped: 1 },
      { passed: 10, failed: 2, skipped: 0 },
    ]);
    expect(closingLine(addCounts(runs.flatMap((run) => (run ? [run] : []))))).toBe(
      '13 passed, 2 failed, 1 skipped',
    );
    expect(parseClosingLine('vitest: 3 passed')).toBeUndefined();
  });
});
