import { describe, expect, it } from 'vitest';
import { addUsage, formatUsage, swarmUsage } from './agent-usage.js';

const call = (inputTokens: number, outputTokens: number, costUsd?: number) => ({
  calls: 1,
  inputTokens,
  outputTokens,
  totalTokens: inputTokens + outputTokens,
  ...(costUsd === undefined ? {} : { costUsd }),
});

describe('agent usage', () => {
  it('sums calls, tokens and the cost of the calls that have one', () => {
    expect(addUsage(call(100, 10), undefined, call(50, 5))).toEqual({
      calls: 2,
      inputTokens: 150,
      outputTokens: 15,
      totalTokens: 165,
    });
    expect(addUsage(call(100, 10, 0.1), call(1, 1), call(1, 1, 0.2))).toMatchObject({
      calls: 3,
      costUsd: 0.3,
    });
    expect(addUsage()).toBeUndefined();
  });

  it('sums a swarm: every task and the supervisor', () => {
    const usage = swarmUsage([{ usage: call(10, 1) }, {}, { usage: call(20, 2) }], { usage: call(5, 5) });
    expect(usage).toEqual({ calls: 3, inputTokens: 35, outputTokens: 8, totalTokens: 43 });
    expect(swarmUsage([{}], {})).toBeUndefined();
  });

  it('formats tokens and cost for tables', () => {
    expect(
      formatUsage({ calls: 2, inputTokens: 1200, outputTokens: 340, totalTokens: 1540, costUsd: 0.0031 }),
    ).toBe('1.2k in / 340 out tok · $0.0031');
    expect(formatUsage(undefined)).toBe('');
  });
});
