import { describe, expect, it } from 'vitest';
import type { SubagentResult } from '../contracts/agent-contracts.js';
import { reusePoolTimes } from './reuse-pool-times.js';

const ok = (outId: string, pooledAt?: number): SubagentResult => ({
  status: 'ok',
  outputs: [{ outId }],
  compact: '',
  bytes: 1,
  durationMs: 1,
  preview: '',
  ...(pooledAt === undefined ? {} : { pooledAt }),
});

describe('reusePoolTimes', () => {
  it('moves the times the reused outputs entered the pool so the latest is now, keeping their spacing', () => {
    const reuse = { base: [ok('out_b')], next: [ok('out_n')], fan: [ok('out_0'), ok('out_1')] };
    const tasks = [
      { task: 'base', endedAt: 1_000 },
      { task: 'next', endedAt: 1_400 },
      { task: 'fan', endedAt: 1_200 },
    ];
    const timed = reusePoolTimes(reuse, tasks, 50_000);
    expect((timed.next as SubagentResult[])[0]?.pooledAt).toBe(50_000);
    expect((timed.base as SubagentResult[])[0]?.pooledAt).toBe(49_600);
    expect((timed.fan as SubagentResult[]).map((result) => result.pooledAt)).toEqual([49_800, 49_800]);
  });

  it("keeps a result's own time (a re-run's reused result), and leaves loops reused whole and unended tasks alone", () => {
    const loop = { loop: { total: 500, manifest: 'out_m', bytes: 0, outCount: 500, outIds: [] } };
    const timed = reusePoolTimes(
      { old: [ok('out_o', 700)], fresh: [ok('out_f')], fan: loop, open: [ok('out_x')] },
      [
        { task: 'old', endedAt: 5_000 },
        { task: 'fresh', endedAt: 900 },
      ],
      10_000,
    );
    expect((timed.old as SubagentResult[])[0]?.pooledAt).toBe(9_800);
    expect((timed.fresh as SubagentResult[])[0]?.pooledAt).toBe(10_000);
    expect(timed.fan).toBe(loop);
    expect((timed.open as SubagentResult[])[0]?.pooledAt).toBeUndefined();
  });
});
