import { swarmSearchAttributes } from '@wharf/orchestrator';
import { describe, expect, it } from 'vitest';
import { childMemoLines, memoStatusLines } from './status-from-memo.js';

describe('memoStatusLines', () => {
  it('shows what waits for a person from the memo, with the command that answers each', () => {
    const lines = memoStatusLines('run-1', {
      memo: {
        swarm: 'ops',
        pendingApprovals: ['deploy'],
        pendingToolCalls: [
          {
            task: 'clean#1',
            callId: 'call-0-0',
            tool: 'shell',
            arguments: '{"command":"rm -r dist"}',
            workflowId: 'run-1/agent/clean#1',
          },
        ],
      },
      typedSearchAttributes: {
        get: (key: { name: string }) =>
          ({ [swarmSearchAttributes.status.name]: 'waiting', [swarmSearchAttributes.pendingGates.name]: 2 })[
            key.name
          ],
      } as never,
    });
    expect(lines).toEqual([
      'ops: waiting · 2 waiting for approval (no worker answers for it: `wharf resume run-1` gives it one; the commands below are answered once it runs)',
      '  deploy',
      '    wharf approve run-1 deploy [--reject] [--comment …]',
      '  clean#1 calls shell {"command":"rm -r dist"}',
      '    wharf approve run-1 clean#1 --call call-0-0 [--reject] [--comment …]',
    ]);
  });

  it('promises no commands below when nothing waits for a person', () => {
    const lines = memoStatusLines('run-2', {
      memo: { swarm: 'ops' },
      typedSearchAttributes: { get: () => undefined } as never,
    });
    expect(lines).toEqual([
      'ops: running · 0 waiting for approval (no worker answers for it: `wharf resume run-2` gives it one)',
    ]);
  });

  it('shows what waits in a swarm: task’s child runs, named under the task, answered from the parent', async () => {
    const attributes = (status: string, gates: number) =>
      ({
        get: (key: { name: string }) =>
          ({ [swarmSearchAttributes.status.name]: status, [swarmSearchAttributes.pendingGates.name]: gates })[
            key.name
          ],
      }) as never;
    const runs: Record<string, unknown> = {
      'run-1/swarm/notes': {
        workflowId: 'run-1/swarm/notes',
        memo: { swarm: 'notes', pendingApprovals: ['publish'], pendingToolCalls: [] },
        typedSearchAttributes: attributes('waiting', 1),
        raw: {
          pendingChildren: [
            { workflowTypeName: 'swarmWorkflow', workflowId: 'run-1/swarm/notes/swarm/deep' },
          ],
        },
      },
      'run-1/swarm/notes/swarm/deep': {
        workflowId: 'run-1/swarm/notes/swarm/deep',
        memo: {
          swarm: 'deep',
          pendingToolCalls: [
            { task: 'review', callId: 'c1', tool: 'shell', arguments: '{}', workflowId: 'x/agent/review' },
          ],
        },
        typedSearchAttributes: attributes('waiting', 1),
        raw: {},
      },
    };
    const { lines, waiting } = await childMemoLines(async (id) => runs[id] as never, 'run-1', {
      workflowId: 'run-1',
      raw: {
        pendingChildren: [
          { workflowTypeName: 'agentTaskWorkflow', workflowId: 'run-1/agent/a' },
          { workflowTypeName: 'swarmWorkflow', workflowId: 'run-1/swarm/notes' },
        ],
      },
    } as never);
    expect(lines).toEqual([
      '  ↳ notes: swarm notes waiting · 1 waiting for approval',
      '  notes.publish',
      '    wharf approve run-1 notes.publish [--reject] [--comment …]',
      '  ↳ notes.deep: swarm deep waiting · 1 waiting for approval',
      '  notes.deep.review calls shell {}',
      '    wharf approve run-1 notes.deep.review --call c1 [--reject] [--comment …]',
    ]);
    // The parent's own line counts what its children wait for: it reads waiting, as live.
    expect(waiting).toBe(2);
    const parent = memoStatusLines(
      'run-1',
      { memo: { swarm: 'release' }, typedSearchAttributes: attributes('running', 0) } as never,
      undefined,
      waiting,
    );
    expect(parent[0]).toMatch(/^release: waiting · 2 waiting for approval \(no worker answers for it/);
    expect(
      memoStatusLines('run-1', {
        memo: { swarm: 'release' },
        typedSearchAttributes: attributes('running', 0),
      } as never)[0],
    ).toMatch(/^release: running · 0 waiting for approval/);
  });
});
