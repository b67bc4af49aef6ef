import { describe, expect, it } from 'vitest';
import type { TaskProgress } from '../contracts/progress-contracts.js';
import { finalReport } from './final-report.js';

function task(name: string, status: TaskProgress['status'], extra: Partial<TaskProgress> = {}): TaskProgress {
  return {
    task: name,
    status,
    instances: { done: 1, total: 1 },
    bytesCaptured: 0,
    outIds: [],
    waitingFor: [],
    ...extra,
  };
}

describe('finalReport', () => {
  it('lists failures first with their reasons, every task with its out ids, then how to read them', () => {
    const lines = finalReport(
      {
        swarm: 'repo-health',
        status: 'failed',
        tasks: [
          task('inventory', 'done', { outIds: ['out_a'] }),
          task('licences', 'failed', { reason: 'exit 1 · missing LICENSE\nin apps/cli', outIds: ['out_b'] }),
          task('summary', 'skipped', { reason: 'dependency licences failed' }),
          task('fan', 'done', {
            instances: { done: 5, total: 5 },
            outIds: ['o1', 'o2', 'o3', 'o4', 'o5'],
            reused: 5,
          }),
        ],
      },
      'run-1',
    );
    expect(lines).toEqual([
      'swarm repo-health failed · 4 tasks: 2 done, 1 failed, 1 skipped',
      '✘ licences failed — exit 1 · missing LICENSE in apps/cli → out_b',
      '✔ inventory done → out_a',
      '↷ summary skipped — dependency licences failed',
      '✔ fan done 5/5 (reused) → o1, o2, o3 (+2 more)',
      'read an output: wharf outputs show <out id>',
      'every output: wharf outputs list --run run-1',
      'whole result: wharf status run-1',
    ]);
  });

  it('stays bounded: a cap on tasks (failures kept first), a cut on long reasons, the supervisor error', () => {
    const tasks = [
      ...Array.from({ length: 30 }, (_, index) => task(`ok${index}`, 'done')),
      task('broken', 'failed', { reason: 'x'.repeat(1_000) }),
    ];
    const lines = finalReport(
      {
        swarm: 'wide',
        status: 'failed',
        tasks,
        supervisor: { answer: '', evidenceBytes: 0, error: 'no key' },
      },
      'run-2',
      { maxTasks: 3 },
    );
    expect(lines[1]).toBe('supervisor: no answer — no key');
    expect(lines[2]?.startsWith('✘ broken failed — xxx')).toBe(true);
    expect(lines[2]?.length).toBeLessThan(230);
    expect(lines.slice(3, 6)).toEqual(['✔ ok0 done', '✔ ok1 done', '… and 28 more tasks']);
  });

  it('names the manifest of a loop too wide to list its out ids', () => {
    const lines = finalReport(
      {
        swarm: 'wide',
        status: 'completed',
        tasks: [
          task('fan', 'done', { instances: { done: 2000, total: 2000 }, outCount: 2000, manifest: 'out_m' }),
        ],
      },
      'run-2',
    );
    expect(lines).toContain('✔ fan done 2000/2000 → 2000 outputs listed by out_m (wharf outputs refs out_m)');
  });
});
