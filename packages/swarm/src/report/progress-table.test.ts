import { describe, expect, it } from 'vitest';
import type { SwarmProgress, TaskProgress } from '../contracts/progress-contracts.js';
import { renderProgressTable } from './progress-table.js';

function task(name: string, status: TaskProgress['status'], reason?: string): TaskProgress {
  return {
    task: name,
    status,
    instances: { done: 1, total: 1 },
    bytesCaptured: 10,
    outIds: [],
    waitingFor: [],
    ...(reason === undefined ? {} : { reason }),
  };
}

const progress: SwarmProgress = {
  swarm: 'repo-health',
  status: 'failed',
  step: 3,
  tasks: [
    task('inventory', 'done'),
    task('licences', 'failed', 'exit 1 · missing LICENSE in apps/cli'),
    task('summary', 'done'),
    task('lint', 'cancelled', 'cancelled by request'),
  ],
};

describe('renderProgressTable', () => {
  it('lists failed and cancelled tasks first, each with its reason, above and in the table', () => {
    const lines = renderProgressTable(progress).split('\n');
    expect(lines[0]).toBe('**repo-health** · failed · step 3 · 2 done · 1 failed · 1 cancelled');
    expect(lines).toContain('**Failures (2 of 4 tasks):**');
    expect(lines).toContain('- ✘ **licences** failed — exit 1 · missing LICENSE in apps/cli');
    expect(lines).toContain('- ⊘ **lint** cancelled — cancelled by request');
    const rows = lines
      .filter((line) => line.startsWith('| ') && !line.startsWith('| task'))
      .map((line) => line.split(' | ')[0]);
    expect(rows).toEqual(['| licences', '| lint', '| inventory', '| summary']);
    expect(lines.find((line) => line.startsWith('| licences'))).toContain(
      'exit 1 · missing LICENSE in apps/cli',
    );
  });

  it('keeps the definition order and shows no failures block when nothing failed', () => {
    const text = renderProgressTable({
      ...progress,
      status: 'completed',
      tasks: [task('b', 'done'), task('a', 'done')],
    });
    expect(text).not.toContain('Failures');
    expect(
      text
        .split('\n')
        .filter((line) => /^\| [ab] /.test(line))
        .map((line) => line[2]),
    ).toEqual(['b', 'a']);
  });

  it('keeps a reason one markdown line: no line breaks, no markup from stderr', () => {
    const text = renderProgressTable({
      ...progress,
      tasks: [task('x', 'failed', 'exit 2 · **boom**\n<script>alert(1)</script>')],
    });
    expect(text).toContain('- ✘ **x** failed — exit 2 · \\*\\*boom\\*\\* \\<script\\>alert(1)\\</script\\>');
  });

  it('counts skipped tasks in the header and shows why each was skipped', () => {
    const table = renderProgressTable({
      swarm: 'branches',
      status: 'completed',
      step: 2,
      tasks: [
        { ...task('check', 'done'), instances: { done: 0, total: 1 }, bytesCaptured: 0 },
        {
          ...task('on_err', 'skipped', 'input †data.err can no longer be written (check done)'),
          instances: { done: 0, total: 1 },
          bytesCaptured: 0,
        },
      ],
    });
    expect(table.split('\n')[0]).toBe('**branches** · completed · step 2 · 1 done · 1 skipped');
    expect(table).toContain(
      '| on_err | ↷ skipped | 0/1 | 0 B |  | input †data.err can no longer be written (check done) |',
    );
  });

  it("shows agent tasks' model usage in a column and the total in the title, only when a model was called", () => {
    const usage = { calls: 2, inputTokens: 1200, outputTokens: 340, totalTokens: 1540, costUsd: 0.0031 };
    const withAgent: SwarmProgress = {
      ...progress,
      tasks: [task('inventory', 'done'), { ...task('review', 'done'), usage }],
    };
    const lines = renderProgressTable(withAgent).split('\n');
    expect(lines[0]).toBe('**repo-health** · failed · step 3 · 2 done · 1.2k in / 340 out tok · $0.0031');
    expect(lines).toContain('| task | status | instances | bytes | tokens | outputs | note |');
    expect(lines).toContain('| review | ✔ done | 1/1 | 10 B | 1.2k in / 340 out tok · $0.0031 |  |  |');
    expect(lines).toContain('| inventory | ✔ done | 1/1 | 10 B |  |  |  |');
    expect(renderProgressTable(progress)).not.toContain('tokens');
  });
});
