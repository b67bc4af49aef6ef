import type { SwarmProgress, SwarmResult } from '@wharf/orchestrator';
import { describe, expect, it } from 'vitest';
import { followRun, unreadableReason } from './follow-run.js';
import type { CliIo } from './output.js';

function recordingIo(): CliIo & { errors: string[]; lines: string[] } {
  const errors: string[] = [];
  const lines: string[] = [];
  return { errors, lines, isTTY: false, out: (text) => lines.push(text), err: (text) => errors.push(text) };
}

const progress: SwarmProgress = {
  swarm: 's',
  status: 'running',
  step: 1,
  tasks: [
    {
      task: 'a',
      status: 'running',
      instances: { done: 0, total: 1 },
      bytesCaptured: 0,
      outIds: [],
      waitingFor: [],
    },
  ],
};

describe('followRun', () => {
  it('says when a progress read goes unanswered (a server that is down), then that it is readable again', async () => {
    const io = recordingIo();
    let reads = 0;
    let end!: () => void;
    const until = new Promise<void>((resolve) => {
      end = resolve;
    });
    const wharf = {
      // The first read hangs 300 ms (the client waiting through an outage); later reads answer.
      progress: async () => {
        reads++;
        if (reads === 1) await new Promise((resolve) => setTimeout(resolve, 300));
        if (reads === 3) end();
        return progress;
      },
    };
    await followRun(
      wharf,
      'run-1',
      { result: new Promise<SwarmResult>(() => {}), until, io },
      { intervalMs: 10, silentMs: 100 },
    );
    expect(io.errors).toEqual([
      'wharf: cannot read progress (no answer for 0 s); retrying',
      'wharf: progress readable again',
    ]);
  });

  it('stays quiet while reads answer within the limit, and names a failed read once', async () => {
    const io = recordingIo();
    let reads = 0;
    let end!: () => void;
    const until = new Promise<void>((resolve) => {
      end = resolve;
    });
    const wharf = {
      progress: async () => {
        reads++;
        if (reads === 5) end();
        if (reads === 2 || reads === 3) throw new Error('14 UNAVAILABLE: connection refused');
        return progress;
      },
    };
    await followRun(
      wharf,
      'run-1',
      { result: new Promise<SwarmResult>(() => {}), until, io },
      { intervalMs: 5, silentMs: 1_000 },
    );
    expect(io.errors).toEqual([
      'wharf: cannot read progress (connection refused); retrying',
      'wharf: progress readable again',
    ]);
  });

  it('reads a gRPC failure as its first line without the status prefix', () => {
    expect(unreadableReason(new Error('14 UNAVAILABLE: no connection\nmore'))).toBe('no connection');
  });
});
