import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allocateCombined } from './combined-budget.js';

describe('allocateCombined', () => {
  it('leaves the per-stream caps alone when both fit', () => {
    expect(
      allocateCombined({ stdoutCap: 100, stderrCap: 50, stdoutBytes: 500, stderrBytes: 500, combined: 150 }),
    ).toEqual({
      stdout: 100,
      stderr: 50,
    });
  });

  it('splits by cap share and hands an unused share to the other stream', () => {
    const base = { stdoutCap: 300, stderrCap: 100, combined: 200 };
    expect(allocateCombined({ ...base, stdoutBytes: 1000, stderrBytes: 1000 })).toEqual({
      stdout: 150,
      stderr: 50,
    });
    expect(allocateCombined({ ...base, stdoutBytes: 1000, stderrBytes: 10 })).toEqual({
      stdout: 190,
      stderr: 10,
    });
    expect(allocateCombined({ ...base, stdoutBytes: 120, stderrBytes: 1000 })).toEqual({
      stdout: 120,
      stderr: 80,
    });
  });

  it('never exceeds the combined limit or a stream cap', () => {
    fc.assert(
      fc.property(
        fc.nat(1000),
        fc.nat(1000),
        fc.nat(3000),
        fc.nat(3000),
        fc.nat(2500),
        (outCap, errCap, out, err, combined) => {
          const budget = allocateCombined({
            stdoutCap: outCap,
            stderrCap: errCap,
            stdoutBytes: out,
            stderrBytes: err,
            combined,
          });
          expect(budget.stdout).toBeLessThanOrEqual(outCap);
          expect(budget.stderr).toBeLessThanOrEqual(errCap);
          expect(Math.min(out, budget.stdout) + Math.min(err, budget.stderr)).toBeLessThanOrEqual(
            Math.max(combined, 0),
          );
        },
      ),
    );
  });
});
