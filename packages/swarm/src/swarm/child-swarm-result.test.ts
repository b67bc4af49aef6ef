import { describe, expect, it } from 'vitest';
import type { SwarmResult } from '../contracts/swarm-contracts.js';
import { parseSwarm } from '../dsl/parse-swarm.js';
import { CHILD_PREVIEW_CHARS, childSwarmResult } from './child-swarm-result.js';

const child = parseSwarm(`name: notes
tasks:
  changes: { script: { content: echo } }
  draft: { depends_on: [changes], script: { content: echo } }
  headline: { depends_on: [changes, draft], script: { content: echo } }
  extra: { script: { content: echo } }
`);

const progress = (task: string, status: 'done' | 'failed', reason?: string) => ({
  task,
  status,
  instances: { done: 1, total: 1 },
  bytesCaptured: 0,
  outIds: [],
  waitingFor: [],
  ...(reason === undefined ? {} : { reason }),
});

const result: SwarmResult = {
  swarm: 'notes',
  status: 'completed',
  outputs: { changes: ['out_c'], draft: ['out_d'], headline: ['out_h', 'out_h2'], extra: ['out_e'] },
  tasks: ['changes', 'draft', 'headline', 'extra'].map((task) => progress(task, 'done')),
  previews: { changes: 'a\nb\n', draft: 'draft text', headline: 'headline: 2 changes\n', extra: 'x\n' },
  metrics: {
    totalBytes: 2048,
    taskCount: 4,
    failedCount: 0,
    continuedAsNew: 1,
    usage: { calls: 1, inputTokens: 10, outputTokens: 2, totalTokens: 12 },
  },
};

describe('childSwarmResult', () => {
  it('hands on the last tasks’ outputs first and their previews, the totals, a compact per task', () => {
    const handed = childSwarmResult(result, child, 1500);
    expect(handed).toMatchObject({
      status: 'ok',
      outputs: ['out_h', 'out_h2', 'out_e', 'out_c', 'out_d'].map((outId) => ({ outId })),
      preview: 'headline: 2 changes\nx',
      bytes: 2048,
      durationMs: 1500,
      usage: result.metrics.usage,
    });
    expect(handed.compact?.split('\n')).toEqual([
      'swarm notes: completed · 4 of 4 tasks done · 2KB',
      '- changes: done',
      '- draft: done',
      '- headline: done',
      '- extra: done',
    ]);
    expect(handed.stderrTail).toBeUndefined();
  });

  it('prefers the supervisor’s answer, cut to its bound', () => {
    const answer = 'y'.repeat(CHILD_PREVIEW_CHARS + 50);
    const handed = childSwarmResult({ ...result, supervisor: { answer, evidenceBytes: 0 } }, child, 1);
    expect(handed.preview).toBe('y'.repeat(CHILD_PREVIEW_CHARS));
  });

  it('fails with the failed tasks’ reasons when the child ended failed (on_failure: complete)', () => {
    const handed = childSwarmResult(
      {
        ...result,
        status: 'failed',
        tasks: [progress('changes', 'failed', 'exit code 1'), progress('draft', 'done')],
      },
      child,
      1,
    );
    expect(handed.status).toBe('failed');
    expect(handed.stderrTail).toBe('changes failed: exit code 1');
  });

  it('lists at most 64 out ids', () => {
    const many = Array.from({ length: 100 }, (_, index) => `out_${index}`);
    const handed = childSwarmResult({ ...result, outputs: { extra: many } }, child, 1);
    expect(handed.outputs).toHaveLength(64);
    expect(handed.outputs[0]).toEqual({ outId: 'out_0' });
  });
});
