import { describe, expect, it } from 'vitest';
import { taskCounts } from './task-counts.js';

describe('taskCounts', () => {
  it('counts done tasks, failed and cancelled ones as failed, and every task in the total', () => {
    expect(
      taskCounts([
        { status: 'done' },
        { status: 'done' },
        { status: 'failed' },
        { status: 'cancelled' },
        { status: 'skipped' },
        { status: 'running' },
      ]),
    ).toEqual({ done: 2, failed: 2, total: 6 });
    expect(taskCounts([])).toEqual({ done: 0, failed: 0, total: 0 });
  });
});
