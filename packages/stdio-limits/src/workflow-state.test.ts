import { describe, expect, it } from 'vitest';
import { resolveLimits } from './limits.js';
import { outputFixture } from './test-fixtures.js';
import {
  contextConfigFromLimits,
  markAccessed,
  recordTaskOutput,
  type WorkflowState,
} from './workflow-state.js';

describe('workflow state helpers', () => {
  it('records outputs without touching the previous state and counts them', () => {
    const empty: WorkflowState = { taskOutputs: {} };
    const one = recordTaskOutput(empty, outputFixture('a'));
    const two = recordTaskOutput(one, outputFixture('b'));
    expect(Object.keys(empty.taskOutputs)).toEqual([]);
    expect(Object.keys(two.taskOutputs)).toEqual(['a', 'b']);
    expect(two.tasksSinceCheckpoint).toBe(2);
  });

  it('marks outputs as accessed for LRU', () => {
    const state = recordTaskOutput({ taskOutputs: {} }, outputFixture('a', { lastAccessed: 1 }));
    expect(markAccessed(state, ['a', 'missing'], 99).taskOutputs.a?.lastAccessed).toBe(99);
    expect(state.taskOutputs.a?.lastAccessed).toBe(1);
  });

  it('derives the context config from limits', () => {
    const limits = resolveLimits({
      limits: { max_context_bytes: 500, time_window_secs: 60, context_masking: { keep_recent: 3 } },
    });
    expect(contextConfigFromLimits(limits)).toEqual({
      maxBytes: 500,
      maxTasks: 10,
      relevanceThreshold: 0.3,
      cleanupStrategy: { type: 'most_recent', keep_count: 20 },
      timeWindowSecs: 60,
      maskKeepRecent: 3,
    });
  });
});
