import type { SwarmProgress, SwarmResult } from '@wharf/orchestrator';
import { InMemoryOutputStore, openStream, streamId } from '@wharf/output-store';
import { describe, expect, it } from 'vitest';
import { followRun } from './follow-run.js';
import { liveStreams } from './live-text.js';
import type { CliIo } from './output.js';

const producer = { ownerId: 'team', runId: 'wf-1', spawnId: 'wf-1/agent/draft', agent: 'mock:writer' };
const key = 'wf-1/agent/draft/run/agent/step-0/text';
const stream = streamId(producer, key);

function progressWith(live: boolean): SwarmProgress {
  return {
    swarm: 's',
    status: 'running',
    step: 1,
    tasks: [
      {
        task: 'draft',
        status: live ? 'running' : 'done',
        instances: { done: live ? 0 : 1, total: 1 },
        bytesCaptured: 0,
        outIds: [],
        waitingFor: [],
        ...(live ? { live: [{ activity: 'agentModelStep', attempt: 1, step: 0, stream }] } : {}),
      },
    ],
  };
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let tries = 0; tries < 300; tries += 1) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`never: ${what}`);
}

describe('followRun with live answers', () => {
  it("writes a running agent's answer as it is stored, before its step ends, and never an abandoned attempt's text again", async () => {
    const store = new InMemoryOutputStore();
    const written: string[] = [];
    const errors: string[] = [];
    const io: CliIo = {
      isTTY: false,
      out: (text) => written.push(`${text}\n`),
      err: (text) => errors.push(text),
      write: (text) => written.push(text),
    };
    let running = true;
    let end!: () => void;
    const ended = new Promise<void>((resolve) => {
      end = resolve;
    });
    const following = followRun(
      { progress: async () => progressWith(running) },
      'wf-1',
      { result: new Promise<SwarmResult>(() => {}), until: ended, io },
      { intervalMs: 10, store, liveText: { intervalMs: 10 } },
    );

    // Attempt 1 writes, then its worker dies (nothing more); attempt 2 answers whole.
    const first = await openStream(store, { producer, key, attempt: 1, flushMs: 5 });
    await first.append('The tide ');
    await until(() => written.join('').includes('draft │ The tide '), 'the first words');
    const second = await openStream(store, { producer, key, attempt: 2, flushMs: 5 });
    await second.append('The moon pulls ');
    await second.append('the sea.\nIt turns.');
    await until(() => written.join('').includes('It turns.'), 'the second attempt');
    await second.seal();
    running = false;
    end();
    await following;

    const text = written.join('');
    expect(text).toContain('draft │ The tide ');
    expect(text).toContain('draft │ The moon pulls the sea.\ndraft │ It turns.');
    expect(text.split('The tide').length).toBe(2);
    expect(errors).toEqual(["wharf: draft's answer starts again on attempt 2 (attempt 1 abandoned)"]);
  });

  it('names the streams of running agents, inside child runs too', () => {
    const child = progressWith(true);
    const parent: SwarmProgress = {
      ...progressWith(false),
      tasks: [
        {
          ...(progressWith(false).tasks[0] as SwarmProgress['tasks'][number]),
          task: 'notes',
          status: 'running',
          child: { workflowId: 'c', ...child },
        },
      ],
    };
    expect(liveStreams(parent)).toEqual([{ name: 'notes.draft', stream }]);
  });
});
