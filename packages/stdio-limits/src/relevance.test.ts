import { describe, expect, it } from 'vitest';
import { parseWorkflowYaml } from './limits.js';
import { calculateRelevance, dependencyDepths } from './relevance.js';
import { outputFixture } from './test-fixtures.js';
import type { WorkflowState } from './workflow-state.js';

// Diamond: root ← left, right ← join ← report; plus an unrelated task on join's agent.
const workflow = parseWorkflowYaml(`
tasks:
  root: { agent: fetcher }
  left: { agent: a, depends_on: [root] }
  right: { agent: b, depends_on: [root] }
  join: { agent: joiner, depends_on: [left, right] }
  report: { agent: reporter, depends_on: [join] }
  sibling: { agent: joiner }
  recent: { agent: z }
  old: { agent: y }
`);
const now = 10_000_000;
const state: WorkflowState = {
  taskOutputs: Object.fromEntries(
    ['root', 'left', 'right', 'join', 'sibling', 'recent', 'old'].map((id) => [
      id,
      outputFixture(id, { completedAt: id === 'recent' ? now - 299_000 : now - 301_000 }),
    ]),
  ),
};
const score = (currentTaskId: string, outputTaskId: string) =>
  calculateRelevance({ currentTaskId, outputTaskId, workflow, state, now });

describe('calculateRelevance', () => {
  it('scores a diamond by shortest dependency distance', () => {
    expect(score('join', 'left')).toBe(1);
    expect(score('join', 'right')).toBe(1);
    expect(score('join', 'root')).toBe(0.4);
    expect(score('report', 'join')).toBe(1);
    expect(score('report', 'left')).toBe(0.4);
    expect(score('report', 'root')).toBeCloseTo(0.8 / 3);
    expect([...dependencyDepths(workflow, 'report')].sort()).toEqual([
      ['join', 1],
      ['left', 2],
      ['right', 2],
      ['root', 3],
    ]);
  });

  it('does not score dependents as dependencies', () => {
    expect(score('root', 'join')).toBe(0);
  });

  it('scores the same agent 0.5, a recent output 0.3 with the injected clock, else 0', () => {
    expect(score('join', 'sibling')).toBe(0.5);
    expect(score('join', 'recent')).toBe(0.3);
    expect(score('join', 'old')).toBe(0);
    expect(
      calculateRelevance({ currentTaskId: 'join', outputTaskId: 'recent', workflow, state, now: now + 2000 }),
    ).toBe(0);
  });

  it('survives dependency cycles', () => {
    const cyclic = parseWorkflowYaml('tasks:\n  a: { depends_on: [b] }\n  b: { depends_on: [a] }\n');
    expect(calculateRelevance({ currentTaskId: 'a', outputTaskId: 'b', workflow: cyclic, state, now })).toBe(
      1,
    );
    expect([...dependencyDepths(cyclic, 'a')]).toEqual([['b', 1]]);
  });
});
