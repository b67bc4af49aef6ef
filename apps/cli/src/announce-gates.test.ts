import type { SwarmProgress, TaskProgress } from '@wharf/orchestrator';
import { describe, expect, it } from 'vitest';
import { announceGates, newlyWaitingGates } from './announce-gates.js';
import type { CliIo } from './output.js';

function task(name: string, fields: Partial<TaskProgress>): TaskProgress {
  return {
    task: name,
    status: 'pending',
    instances: { done: 0, total: 1 },
    bytesCaptured: 0,
    outIds: [],
    waitingFor: [],
    ...fields,
  };
}

function progressOf(...tasks: TaskProgress[]): SwarmProgress {
  return { swarm: 'release', status: 'running', step: 1, tasks };
}

const waitingGate = (name: string) =>
  task(name, { status: 'waiting', approval: { prompt: 'Ship it?', requestedAt: 1 } });

describe('newlyWaitingGates', () => {
  it('names a gate once, when it opens; never one that is skipped or answered', () => {
    const announced = new Set<string>();
    const before = progressOf(task('publish', { status: 'pending', approval: { prompt: 'Ship it?' } }));
    expect(newlyWaitingGates(before, announced)).toEqual([]);
    expect(newlyWaitingGates(progressOf(waitingGate('publish')), announced)).toEqual(['publish']);
    expect(newlyWaitingGates(progressOf(waitingGate('publish')), announced)).toEqual([]);
    const skipped = task('notify', { status: 'skipped', approval: { prompt: 'Tell them?' } });
    const answered = task('deploy', {
      status: 'waiting',
      approval: { prompt: 'Go?', requestedAt: 1, decision: 'approved' },
    });
    expect(newlyWaitingGates(progressOf(skipped, answered), announced)).toEqual([]);
  });
});

describe('newlyWaitingGates inside a swarm: task’s child run', () => {
  it('names a child’s gate as the parent’s command takes it, once it opens there, never before; not a held tool call', () => {
    const announced = new Set<string>();
    const notes = (child: SwarmProgress | undefined) =>
      progressOf(
        task('notes', {
          status: 'running',
          ...(child === undefined ? {} : { child: { workflowId: 'release-1/swarm/notes', ...child } }),
        }),
      );
    // The child has not started, then runs with its gate still closed: nothing to announce.
    expect(newlyWaitingGates(notes(undefined), announced)).toEqual([]);
    const closed = progressOf(
      task('draft', { status: 'running' }),
      task('publish', { status: 'pending', approval: { prompt: 'Publish?' } }),
    );
    expect(newlyWaitingGates(notes(closed), announced)).toEqual([]);
    const opened = {
      ...progressOf(task('draft', { status: 'done' }), waitingGate('publish')),
      pendingToolCalls: [
        { task: 'clean', callId: 'call-1', tool: 'shell', arguments: '{}', requestedAt: 1, workflowId: 'w' },
      ],
    } as SwarmProgress;
    expect(newlyWaitingGates(notes(opened), announced)).toEqual(['notes.publish']);
    expect(newlyWaitingGates(notes(opened), announced)).toEqual([]);
  });
});

describe('announceGates', () => {
  it('says a gate waits, with its command, only once it opens; a skipped gate is never announced', async () => {
    const errors: string[] = [];
    const io: CliIo = { isTTY: false, out: () => {}, err: (text) => errors.push(text) };
    const reads = [
      progressOf(task('notify', { status: 'pending', approval: {} }), task('publish', { approval: {} })),
      progressOf(task('notify', { status: 'skipped', approval: {} }), task('publish', { approval: {} })),
      progressOf(task('notify', { status: 'skipped', approval: {} }), waitingGate('publish')),
      progressOf(task('notify', { status: 'skipped', approval: {} }), waitingGate('publish')),
    ];
    let read = 0;
    let end!: () => void;
    const until = new Promise<void>((resolve) => {
      end = resolve;
    });
    const wharf = {
      progress: async () => {
        const progress = reads[Math.min(read, reads.length - 1)] as SwarmProgress;
        read++;
        if (read === reads.length) end();
        return progress;
      },
    };
    await announceGates(wharf, 'release-1', {
      until,
      io,
      approveCommand: (name) => `wharf approve release-1 ${name}`,
      intervalMs: 5,
    });
    expect(errors).toEqual([
      'wharf: publish waits for approval; answer with: wharf approve release-1 publish [--reject] [--comment …]',
    ]);
  });
});
