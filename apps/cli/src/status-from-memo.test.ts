import { swarmSearchAttributes } from '@wharf/orchestrator';
import { describe, expect, it } from 'vitest';
import { memoStatusLines } from './status-from-memo.js';

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
});
