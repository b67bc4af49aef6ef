import type { SwarmProgress } from '@wharf/orchestrator';
import { describe, expect, it } from 'vitest';
import { changedLines, progressLines } from './progress-view.js';

const progress = (status: 'running' | 'done'): SwarmProgress => ({
  swarm: 's',
  status: 'running',
  step: 1,
  tasks: [
    {
      task: 'fetch',
      status,
      instances: { done: status === 'done' ? 1 : 0, total: 1 },
      bytesCaptured: 2_500_000,
      outIds: status === 'done' ? ['out_1'] : [],
      waitingFor: [],
      startedAt: 1_000,
      ...(status === 'done' ? { endedAt: 3_500 } : {}),
    },
    {
      task: 'report',
      status: 'waiting',
      instances: { done: 0, total: 1 },
      bytesCaptured: 0,
      outIds: [],
      waitingFor: ['†data.x'],
    },
  ],
});

describe('progressLines', () => {
  it('shows status, bytes, elapsed time and what a task waits for', () => {
    const [fetch, report] = progressLines(progress('running'), 4_000);
    expect(fetch).toMatch(/^▶ +fetch +running +2\.4MB +3\.0s$/);
    expect(report).toContain('waits for †data.x');
  });
});

describe('changedLines', () => {
  it('prints a line only when a task changes', () => {
    const seen = new Map<string, string>();
    expect(changedLines(progress('running'), seen)).toEqual(['fetch: running 2.4MB', 'report: waiting']);
    expect(changedLines(progress('running'), seen)).toEqual([]);
    expect(changedLines(progress('done'), seen)).toEqual(['fetch: done 2.4MB out_1']);
  });
});
