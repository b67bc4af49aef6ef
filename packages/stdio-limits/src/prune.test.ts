import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { getContextMetrics } from './metrics.js';
import { checkpointAndPrune, cleanupStrategyFromConfig, pruneOutputs } from './prune.js';
import { checkpointPruneSchema, workflowDefinitionSchema } from './schemas.js';
import { outputFixture } from './test-fixtures.js';
import { recordTaskOutput, type WorkflowState } from './workflow-state.js';

const state: WorkflowState = {
  taskOutputs: {
    a: outputFixture('a', { completedAt: 1, lastAccessed: 50, relevanceScore: 0.9, dependedBy: ['x'] }),
    b: outputFixture('b', { completedAt: 2, lastAccessed: 10, relevanceScore: 0.2 }),
    c: outputFixture('c', { completedAt: 3, lastAccessed: 40, relevanceScore: 0.9 }),
    d: outputFixture('d', { completedAt: 4, lastAccessed: 20, relevanceScore: 0.5, dependedBy: ['y', 'z'] }),
  },
};
const kept = (result: { state: WorkflowState }) => Object.keys(result.state.taskOutputs);

describe('pruneOutputs', () => {
  it('most_recent keeps the last completed', () => {
    const result = pruneOutputs(state, { type: 'most_recent', keepCount: 2 }, 99);
    expect(kept(result)).toEqual(['c', 'd']);
    expect(result.removed).toEqual(['a', 'b']);
    expect(result.state.lastPrunedAt).toBe(99);
  });

  it('lru keeps the last read', () => {
    expect(kept(pruneOutputs(state, { type: 'lru', keepCount: 2 }, 0))).toEqual(['a', 'c']);
  });

  it('highest_relevance keeps the top scores, ties broken by recency', () => {
    expect(kept(pruneOutputs(state, { type: 'highest_relevance', keepCount: 1 }, 0))).toEqual(['c']);
    expect(kept(pruneOutputs(state, { type: 'highest_relevance', keepCount: 3 }, 0))).toEqual([
      'a',
      'c',
      'd',
    ]);
  });

  it('direct_dependencies keeps outputs something depends on', () => {
    expect(kept(pruneOutputs(state, { type: 'direct_dependencies' }, 0))).toEqual(['a', 'd']);
    const workflow = { tasks: { report: { depends_on: ['b'] } } };
    expect(kept(pruneOutputs(state, { type: 'direct_dependencies', workflow }, 0))).toEqual(['a', 'b', 'd']);
  });

  it('custom keeps what the predicate keeps', () => {
    expect(kept(pruneOutputs(state, { type: 'custom', keep: (output) => output.taskId !== 'c' }, 0))).toEqual(
      ['a', 'b', 'd'],
    );
  });

  it('leaves the input state untouched and rejects a bad keep count', () => {
    pruneOutputs(state, { type: 'most_recent', keepCount: 0 }, 0);
    expect(Object.keys(state.taskOutputs)).toHaveLength(4);
    expect(() => pruneOutputs(state, { type: 'lru', keepCount: -1 })).toThrow(/keepCount/);
  });

  it('converts configured strategies', () => {
    expect(cleanupStrategyFromConfig({ type: 'lru', keep_count: 10 })).toEqual({
      type: 'lru',
      keepCount: 10,
    });
    expect(cleanupStrategyFromConfig({ type: 'direct_dependencies' })).toEqual({
      type: 'direct_dependencies',
    });
  });
});

describe('checkpointAndPrune', () => {
  it('prunes every N recorded tasks and records when', () => {
    const hook = { every: 3, strategy: 'most_recent', keep_count: 2 } as const;
    let current: WorkflowState = { taskOutputs: {} };
    const prunedAt: number[] = [];
    for (let index = 0; index < 7; index++) {
      current = recordTaskOutput(current, outputFixture(`t${index}`, { completedAt: index }));
      const result = checkpointAndPrune(current, hook, 1000 + index);
      if (result.state !== current) prunedAt.push(index);
      current = result.state;
    }
    expect(prunedAt).toEqual([2, 5]);
    expect(Object.keys(current.taskOutputs)).toEqual(['t4', 't5', 't6']);
    expect(getContextMetrics(current).lastPrunedAt).toBe(1005);
  });
});

describe('checkpoint_and_prune configuration', () => {
  it('parses the hook from a workflow and prunes by it', () => {
    const workflow = workflowDefinitionSchema.parse(
      parse(`
hooks:
  post_task:
    - checkpoint_and_prune:
        every: 2
        strategy: highest_relevance
        keep_count: 1
`),
    );
    const hook = checkpointPruneSchema.parse(workflow.hooks?.post_task?.[0]?.checkpoint_and_prune);
    let current: WorkflowState = { taskOutputs: {} };
    current = recordTaskOutput(current, outputFixture('low', { relevanceScore: 0.1 }));
    current = recordTaskOutput(current, outputFixture('high', { relevanceScore: 0.9 }));
    expect(Object.keys(checkpointAndPrune(current, hook, 5).state.taskOutputs)).toEqual(['high']);
    expect(checkpointPruneSchema.safeParse({ every: 0, strategy: 'lru' }).success).toBe(false);
  });
});
