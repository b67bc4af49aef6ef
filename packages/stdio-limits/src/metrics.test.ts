import { describe, expect, it } from 'vitest';
import { formatContextMetrics, getContextMetrics } from './metrics.js';
import { outputFixture } from './test-fixtures.js';

describe('getContextMetrics', () => {
  it('totals bytes, truncation, external storage and relevance', () => {
    const metrics = getContextMetrics({
      taskOutputs: {
        a: outputFixture('a', {
          content: 'é'.repeat(10),
          truncated: true,
          filePath: '/x',
          relevanceScore: 1,
        }),
        b: outputFixture('b', { content: 'abc', relevanceScore: 0.5 }),
      },
    });
    expect(metrics).toEqual({
      totalBytes: 23,
      taskCount: 2,
      truncatedCount: 1,
      externalCount: 1,
      avgRelevance: 0.75,
      lastPrunedAt: null,
    });
    expect(getContextMetrics({ taskOutputs: {} }).avgRelevance).toBe(0);
    expect(formatContextMetrics({ ...metrics, lastPrunedAt: 0 })).toBe(
      'Context metrics:\n  Total bytes: 23\n  Task outputs: 2\n  Truncated: 1\n  External: 1\n  Avg relevance: 0.75\n  Last pruned: 1970-01-01T00:00:00.000Z',
    );
  });

  it('counts bytes with bytesOf when bodies are kept elsewhere', () => {
    const state = {
      taskOutputs: {
        a: outputFixture('a', { content: '', originalSize: 3_000_000, filePath: 'out_a' }),
        b: outputFixture('b', { content: '', originalSize: 12 }),
      },
    };
    expect(getContextMetrics(state).totalBytes).toBe(0);
    expect(getContextMetrics(state, { bytesOf: (output) => output.originalSize }).totalBytes).toBe(3_000_012);
  });
});
