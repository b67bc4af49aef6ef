import type { TaskProgress } from '@wharf/orchestrator';
import { describe, expect, it } from 'vitest';
import { demoEnding } from './demo-ending.js';

const task = (name: string, status: TaskProgress['status']): TaskProgress => ({
  task: name,
  status,
  instances: { done: 1, total: 1 },
  bytesCaptured: 0,
  outIds: [],
  waitingFor: [],
});

describe('demoEnding', () => {
  it('exits 0 when the swarm completed, and 1 saying so, naming the tasks, when it did not', () => {
    expect(demoEnding({ status: 'completed', tasks: [task('inventory', 'done')] })).toEqual({ exitCode: 0 });
    expect(
      demoEnding({
        status: 'failed',
        tasks: [task('inventory', 'done'), task('licences', 'failed'), task('summary', 'skipped')],
      }),
    ).toEqual({ exitCode: 1, line: 'wharf demo: the swarm failed (licences did not complete): exit 1' });
  });
});
