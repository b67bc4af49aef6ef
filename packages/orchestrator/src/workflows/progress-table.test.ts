import { describe, expect, it } from 'vitest';
import type { TaskProgress } from '../shared/types.js';
import { renderProgressTable } from './progress-table.js';

function task(name: string, status: TaskProgress['status'], reason?: string): TaskProgress {
  return {
    task: name,
    status,
    instances: { done: 0, total: 1 },
    bytesCaptured: 0,
    outIds: [],
    waitingFor: [],
    ...(reason === undefined ? {} : { reason }),
  };
}

describe('renderProgressTable', () => {
  it('counts skipped tasks in the header and shows why each was skipped', () => {
    const table = renderProgressTable({
      swarm: 'branches',
      status: 'completed',
      step: 2,
      tasks: [
        task('check', 'done'),
        task('on_err', 'skipped', 'input †data.err can no longer be written (check done)'),
      ],
    });
    expect(table.split('\n')[0]).toBe('**branches** · completed · step 2 · 1 done · 1 skipped');
    expect(table).toContain(
      '| on_err | ↷ skipped | 0/1 | 0 B |  | input †data.err can no longer be written (check done) |',
    );
  });
});
