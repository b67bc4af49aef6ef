import { type AnswerEvent, answerEventSchema, type SwarmProgress } from '@wharf/orchestrator';
import { InMemoryOutputStore, openStream, streamId } from '@wharf/output-store';
import { describe, expect, it } from 'vitest';
import { followAnswers } from './answer-events.js';

const producer = { ownerId: 'team', runId: 'wf-1', spawnId: 'wf-1/agent/draft', agent: 'mock:writer' };
const key = 'wf-1/agent/draft/run/agent/step-0/text';
const stream = streamId(producer, key);

const progress: SwarmProgress = {
  swarm: 's',
  status: 'running',
  step: 1,
  tasks: [
    {
      task: 'draft',
      status: 'running',
      instances: { done: 0, total: 1 },
      bytesCaptured: 0,
      outIds: [],
      waitingFor: [],
      live: [{ activity: 'agentModelStep', attempt: 2, step: 0, stream }],
    },
  ],
};

describe('followAnswers', () => {
  it('gives each chunk of the current attempt once as wharf.answers/v1 events, with its position', async () => {
    const store = new InMemoryOutputStore();
    const dead = await openStream(store, { producer, key, attempt: 1 });
    await dead.append('half an ans');
    await dead.flush();
    const events: AnswerEvent[] = [];
    const done = new AbortController();
    const following = followAnswers(
      { progress: async () => progress },
      'wf-1',
      store,
      (event) => events.push(event),
      {
        signal: done.signal,
        intervalMs: 10,
        liveText: { intervalMs: 10 },
      },
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    const writer = await openStream(store, { producer, key, attempt: 2 });
    await writer.append('The whole ');
    await writer.flush();
    await writer.append('answer.');
    await writer.seal();
    await new Promise((resolve) => setTimeout(resolve, 100));
    done.abort();
    await following;

    for (const event of events) expect(answerEventSchema.parse(event)).toEqual(event);
    expect(
      events.map((event) =>
        event.type === 'answer.text' ? [event.attempt, event.seq, event.text] : [event.type, event.attempt],
      ),
    ).toEqual([
      [1, 0, 'half an ans'],
      ['answer.restarted', 2],
      [2, 0, 'The whole '],
      [2, 1, 'answer.'],
    ]);
    expect(events[1]).toMatchObject({ label: 'draft', stream, previous: { attempt: 1, state: 'abandoned' } });
  });
});
