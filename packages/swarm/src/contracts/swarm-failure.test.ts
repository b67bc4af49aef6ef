import { describe, expect, it } from 'vitest';
import type { TaskProgress } from './progress-contracts.js';
import { describeSwarmFailure, isTaskFailure } from './swarm-failure.js';

function task(name: string, status: TaskProgress['status'], reason?: string): TaskProgress {
  return {
    task: name,
    status,
    instances: { done: 1, total: 1 },
    bytesCaptured: 0,
    outIds: [],
    waitingFor: [],
    ...(reason === undefined ? {} : { reason }),
  };
}

describe('describeSwarmFailure', () => {
  it('names each failed task with its reason', () => {
    expect(
      describeSwarmFailure({
        swarm: 'repo-health',
        tasks: [
          task('inventory', 'done'),
          task('licences', 'failed', 'exit 1 · missing LICENSE'),
          task('after', 'skipped', 'dependency licences failed'),
        ],
      }),
    ).toBe('swarm repo-health failed: licences failed (exit 1 · missing LICENSE)');
  });

  it('cuts long reasons, lists at most five tasks and adds the supervisor error', () => {
    const tasks = Array.from({ length: 7 }, (_, index) => task(`t${index}`, 'failed', 'x'.repeat(500)));
    const message = describeSwarmFailure({
      swarm: 's',
      tasks,
      supervisor: { answer: '', evidenceBytes: 0, error: 'no key' },
    });
    expect(message).toContain(`t4 failed (${'x'.repeat(159)}…)`);
    expect(message).not.toContain('t5 failed');
    expect(message).toContain('and 2 more; supervisor: no key');
  });

  it('names the tasks not done when none failed outright', () => {
    expect(describeSwarmFailure({ swarm: 's', tasks: [task('a', 'done'), task('b', 'skipped')] })).toBe(
      'swarm s failed: not done: b',
    );
  });

  it('counts failed and cancelled tasks as failures, nothing else', () => {
    expect(
      (['pending', 'waiting', 'running', 'done', 'failed', 'skipped', 'cancelled'] as const).filter(
        (status) => isTaskFailure({ status }),
      ),
    ).toEqual(['failed', 'cancelled']);
  });
});
