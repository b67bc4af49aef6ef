import { describe, expect, it } from 'vitest';
import { planRetention, type RetentionCandidate } from './retention.js';

const DAY = 86_400_000;
const now = 10 * DAY;

function output(outId: string, runId: string, ageDays: number, extra: Partial<RetentionCandidate> = {}) {
  return { outId, runId, sizeBytes: 100, createdMs: now - ageDays * DAY, expiresMs: undefined, ...extra };
}

describe('planRetention', () => {
  it('keeps a run’s definition past the age while its run keeps another output, then removes it with them', () => {
    const definition = output('out_def', 'run-a', 9, { keepWithRun: true });
    const young = output('out_young', 'run-a', 1);
    expect(
      planRetention([definition, output('out_old', 'run-a', 8), young], { olderThanMs: 7 * DAY }, now),
    ).toEqual([{ outId: 'out_old', reason: 'expired' }]);
    expect(planRetention([definition, output('out_old', 'run-a', 8)], { olderThanMs: 7 * DAY }, now)).toEqual(
      [
        { outId: 'out_old', reason: 'expired' },
        { outId: 'out_def', reason: 'expired' },
      ],
    );
  });

  it('never evicts a run’s definition for the byte cap; removes it with its run or its own expiry', () => {
    const definition = output('out_def', 'run-a', 9, { keepWithRun: true });
    expect(planRetention([definition, output('out_b', 'run-b', 1)], { maxTotalBytes: 0 }, now)).toEqual([
      { outId: 'out_b', reason: 'evicted' },
    ]);
    expect(planRetention([definition], { runId: 'run-a' }, now)).toEqual([
      { outId: 'out_def', reason: 'deleted' },
    ]);
    expect(planRetention([{ ...definition, expiresMs: now - 1 }], {}, now)).toEqual([
      { outId: 'out_def', reason: 'expired' },
    ]);
  });
});
