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

  it("moves the pooled outputs of a loop reused whole with the rest, the latest of them counting as the run's last", () => {
    const pooled = [
      { taskId: 'fan#498', outId: 'out_8', pooledAt: 2_000 },
      { taskId: 'fan#499', outId: 'out_9', pooledAt: 3_000 },
    ];
    const loop = {
      total: 500,
      manifest: 'out_m',
      bytes: 0,
      outCount: 500,
      outIds: [],
      pooled,
      pooledCount: 500,
    };
    const timed = reusePoolTimes(
      { base: [ok('out_b')], fan: { loop } },
      [{ task: 'base', endedAt: 1_000 }],
      10_000,
    );
    expect((timed.base as SubagentResult[])[0]?.pooledAt).toBe(8_000);
    expect(timed.fan).toEqual({
      loop: {
        ...loop,
        pooled: [
          { ...pooled[0], pooledAt: 9_000 },
          { ...pooled[1], pooledAt: 10_000 },
        ],
      },
    });
    // The run's own results are left as they were.
    expect(pooled[1]?.pooledAt).toBe(3_000);
  });
});
