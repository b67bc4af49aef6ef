import type { SubagentResult } from '@wharf/swarm';
import { describe, expect, it } from 'vitest';
import { historyPooled, LastInstances } from './history-pooled.js';

const result = (outIds: string[]): SubagentResult => ({
  status: 'ok',
  outputs: outIds.map((outId) => ({ outId })),
  compact: '',
  bytes: 1,
  durationMs: 1,
});

describe('historyPooled', () => {
  it("gives the main outputs of a loop's last instances that stored one, in instance order, at its end", async () => {
    const last = new LastInstances<SubagentResult>();
    // Completions come in any order; an instance with no output is not pooled.
    for (const instance of [...Array.from({ length: 100 }, (_, index) => index).reverse(), 100])
      last.add(instance, result(instance === 95 ? [] : [`out_${instance}`, `out_${instance}_extra`]));
    const decoded: number[] = [];
    const pooled = await historyPooled('fan', last, 9_000, async (value) => {
      decoded.push(1);
      return value;
    });
    expect(pooled.map((output) => output.taskId)).toEqual([
      'fan#90',
      'fan#91',
      'fan#92',
      'fan#93',
      'fan#94',
      'fan#96',
      'fan#97',
      'fan#98',
      'fan#99',
      'fan#100',
    ]);
    expect(pooled.at(-1)).toEqual({ taskId: 'fan#100', outId: 'out_100', pooledAt: 9_000 });
    // Only as many results are decoded as it takes.
    expect(decoded).toHaveLength(11);
    expect(last.newestFirst()).toHaveLength(20);
  });

  it('gives nothing for a loop whose kept instances stored no output', async () => {
    const last = new LastInstances<SubagentResult>();
    last.add(0, result([]));
    expect(await historyPooled('fan', last, 1, async (value) => value)).toEqual([]);
  });
});
