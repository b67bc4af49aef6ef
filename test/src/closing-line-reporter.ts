import { appendFileSync } from 'node:fs';
import type { Reporter, TestModule } from 'vitest/node';

/** What a run counted: tests passed, failed and skipped (todo included). */
export interface TestCounts {
  passed: number;
  failed: number;
  skipped: number;
}

/** Counts the tests of finished modules by their result. */
export function countTests(modules: ReadonlyArray<TestModule>): TestCounts {
  const counts: TestCounts = { passed: 0, failed: 0, skipped: 0 };
  for (const module of modules)
    for (const test of module.children.allTests()) {
      const state = test.result().state;
      if (state === 'passed') counts.passed++;
      else if (state === 'failed') counts.failed++;
      else counts.skipped++;
    }
  return counts;
}

/**
 * The run's closing line in the plain form CI log readers understand, with nothing before the
 * counts: `1499 passed, 0 failed, 1 skipped`, alone on its line.
 */
export function closingLine(counts: TestCounts): string {
  return `${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`;
}

/**
 * A vitest reporter that prints {@link closingLine} after the default summary, and appends it to
 * the file `WHARF_TEST_SUMMARY_FILE` names (so `.ci/run` can repeat it as its own last line, after
 * the steps that follow the tests).
 *
 * @example
 * ```ts
 * // vitest.config.ts
 * reporters: ['default', new ClosingLineReporter()]
 * ```
 */
export class ClosingLineReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const line = closingLine(countTests(modules));
    process.stdout.write(`${line}\n`);
    const file = process.env.WHARF_TEST_SUMMARY_FILE;
    if (file !== undefined && file !== '') appendFileSync(file, `${line}\n`);
  }
}

/**
 * Reads a {@link closingLine} back, or `undefined` when the text is not one.
 *
 * @example
 * ```ts
 * parseClosingLine('12 passed, 1 failed, 0 skipped'); // { passed: 12, failed: 1, skipped: 0 }
 * ```
 */
export function parseClosingLine(line: string): TestCounts | undefined {
  const match = /^(\d+) passed, (\d+) failed, (\d+) skipped$/.exec(line.trim());
  if (match === null) return undefined;
  return { passed: Number(match[1]), failed: Number(match[2]), skipped: Number(match[3]) };
}

/**
 * The counts of several runs added up (the suite's test tasks, one vitest run each).
 *
 * @example
 * ```ts
 * closingLine(addCounts([{ passed: 2, failed: 0, skipped: 1 }, { passed: 3, failed: 1, skipped: 0 }]));
 * // '5 passed, 1 failed, 1 skipped'
 * ```
 */
export function addCounts(runs: ReadonlyArray<TestCounts>): TestCounts {
  const total: TestCounts = { passed: 0, failed: 0, skipped: 0 };
  for (const run of runs) {
    total.passed += run.passed;
    total.failed += run.failed;
    total.skipped += run.skipped;
  }
  return total;
}
