import { describe, expect, it } from 'vitest';
import { EMPTY_RESULTS, INLINE_OUT_IDS, mergeTaskResults, type TaskResultsStep } from './task-results.js';

const step = (outIds: string[], extra: Partial<TaskResultsStep> = {}): TaskResultsStep => ({
  type: 'step',
  done: outIds.length,
  ok: outIds.length,
  failed: 0,
  cancelled: 0,
  bytes: outIds.length * 10,
  outIds,
  failures: [],
  reused: 0,
  inlineAll: false,
  ...extra,
});

describe('mergeTaskResults', () => {
  it('adds a step and keeps out ids inline only while they are few', () => {
    const ids = (from: number, count: number) =>
      Array.from({ length: count }, (_, index) => `out_${from + index}`);
    const first = mergeTaskResults(EMPTY_RESULTS, step(ids(0, INLINE_OUT_IDS)));
    expect(first).toMatchObject({ done: INLINE_OUT_IDS, outCount: INLINE_OUT_IDS, main: 'out_0' });
    expect(first.outIds).toHaveLength(INLINE_OUT_IDS);
    const second = mergeTaskResults(first, step(ids(INLINE_OUT_IDS, 1)));
    expect(second).toMatchObject({
      done: INLINE_OUT_IDS + 1,
      outCount: INLINE_OUT_IDS + 1,
      outIds: [],
      main: 'out_0',
    });
  });

  it('takes a loop reused whole as its summary: every instance ok and reused, the earlier manifest, no chunk to write', () => {
    const usage = { calls: 4, inputTokens: 40, outputTokens: 8, totalTokens: 48 };
    const reused = mergeTaskResults(EMPTY_RESULTS, {
      type: 'reused',
      total: 500,
      manifest: 'out_m',
      bytes: 5_000,
      outCount: 500,
      outIds: [],
      usage,
    });
    expect(reused).toEqual({
      ...EMPTY_RESULTS,
      done: 500,
      ok: 500,
      bytes: 5_000,
      usage,
      reused: 500,
      outCount: 500,
      outIds: [],
      main: null,
      manifest: 'out_m',
    });
    // A narrow one keeps its out ids inline, as if its instances had folded.
    const narrow = mergeTaskResults(EMPTY_RESULTS, {
      type: 'reused',
      total: 100,
      manifest: 'out_n',
      bytes: 0,
      outCount: 2,
      outIds: ['out_a', 'out_b'],
    });
    expect(narrow).toMatchObject({ outIds: ['out_a', 'out_b'], main: 'out_a', reused: 100 });
  });
});
