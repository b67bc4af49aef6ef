import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defaultPayloadConverter } from '@temporalio/common';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import type proto from '@temporalio/proto';
import { RUN_EVENTS_SCHEMA, type RunEvent, runEventSchema } from '@wharf/swarm';
import { describe, expect, it } from 'vitest';
import { type ReadChildHistory, RunEventMapper } from './run-event-mapper.js';

const fixtures = fileURLToPath(new URL('../../../../test/fixtures/histories/', import.meta.url));

/** The recorded replay history of `name`: its runs, first to last, as the server returns them. */
function recorded(name: string): { workflowId: string; runs: proto.temporal.api.history.v1.IHistory[] } {
  const file = JSON.parse(readFileSync(`${fixtures}${name}.json`, 'utf8')) as {
    workflowId: string;
    runs: unknown[];
  };
  return { workflowId: file.workflowId, runs: file.runs.map((run) => historyFromJSON(run)) };
}

/** Every event of a recorded chain, numbered as the stream numbers them. */
async function eventsOf(name: string, readChild?: ReadChildHistory): Promise<RunEvent[]> {
  const { workflowId, runs } = recorded(name);
  const mapper = new RunEventMapper(
    workflowId,
    async (payload) => defaultPayloadConverter.fromPayload(payload as never),
    readChild,
  );
  const events: RunEvent[] = [];
  let runId = 'first';
  for (const run of runs) {
    for (const event of run.events ?? []) {
      for (const derived of await mapper.map(runId, event))
        events.push(runEventSchema.parse({ schema: RUN_EVENTS_SCHEMA, seq: events.length + 1, ...derived }));
      runId = event.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? runId;
    }
  }
  return events;
}

const line = (event: RunEvent) =>
  [event.type, 'label' in event ? event.label : 'task' in event ? event.task : '', detail(event)]
    .filter(Boolean)
    .join(' ');

function detail(event: RunEvent): string {
  switch (event.type) {
    case 'task.failed':
      return event.reason;
    case 'task.started':
      return event.kind;
    case 'approval.answered':
      return `${event.kind} ${event.decision ?? ''}`.trim();
    case 'approval.waiting':
      return event.kind;
    case 'run.ended':
      return event.status;
    case 'tool.called':
      return `${event.tool}${event.failed ? ' failed' : ''}`;
    default:
      return '';
  }
}

describe('RunEventMapper', () => {
  it("puts an agent task's model steps and tool calls, read from its own recorded history, before its end", async () => {
    const agent = recorded('agent-task-workflow');
    const asked: string[] = [];
    const events = await eventsOf('swarm-workflow', async function* (workflowId, runId) {
      asked.push(workflowId);
      if (workflowId !== agent.workflowId) return;
      for (const run of agent.runs) for (const event of run.events ?? []) yield { runId, event };
    });
    expect(asked).toContain(agent.workflowId);
    const write = events.filter((event) => 'label' in event && event.label === 'write').map(line);
    const steps = write.slice(
      write.indexOf('task.started write agent') + 1,
      write.indexOf('task.finished write'),
    );
    expect(steps.length).toBeGreaterThanOrEqual(3);
    expect(steps[0]).toBe('agent.step write');
    expect(steps[1]).toBe('tool.called write spawn_worker');
    const first = events.find((event) => event.type === 'agent.step');
    expect(first).toMatchObject({
      step: 0,
      finishReason: 'tool-calls',
      toolCalls: ['spawn_worker'],
      inputTokens: 100,
      outputTokens: 10,
      agent: { workflowId: agent.workflowId, eventId: 13 },
    });
    const calls = events.filter((event) => event.type === 'tool.called');
    for (const call of calls)
      expect(call).toMatchObject({ task: 'write', agent: { workflowId: agent.workflowId } });
    const modelSteps = events.filter((event) => event.type === 'agent.step');
    expect(modelSteps.map((event) => event.step)).toEqual(modelSteps.map((_, index) => index));
    // Without the agent's history: the same stream without them.
    const plain = await eventsOf('swarm-workflow');
    expect(events.length - plain.length).toBe(steps.length);
    expect(events.map(line).filter((entry) => !/^(agent\.step|tool\.called)/.test(entry))).toEqual(
      plain.map(line),
    );
  });

  it("derives a supervised swarm's stream from its recorded five-run chain: tasks, gates, held tool calls, continues, its end", async () => {
    const events = await eventsOf('swarm-workflow');
    expect(events.map(line)).toEqual([
      'run.started',
      'task.started list script',
      'task.started broken script',
      'task.started slow script',
      'task.cancelled slow',
      'task.finished list',
      'task.failed broken exit 3 · disk on fire',
      'run.continued',
      'task.started recover script',
      'task.started each#0 script',
      'task.finished each#0',
      'task.started each#1 script',
      'task.finished recover',
      'task.finished each#1',
      'run.continued',
      'task.started greet script',
      'task.finished greet',
      'run.continued',
      'task.started write agent',
      'approval.waiting write toolCall',
      'approval.waiting deploy gate',
      'approval.answered deploy gate approved',
      'approval.answered write toolCall',
      'task.finished write',
      'run.continued',
      'task.started deploy script',
      'task.finished deploy',
      'task.started supervisor supervisor',
      'task.finished supervisor',
      'run.ended failed',
    ]);
    // Numbered from 1 with no gap; each event names the run and history event it comes from.
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    const each = events.find((event) => event.type === 'task.started' && event.label === 'each#1');
    expect(each).toMatchObject({ task: 'each', instance: 1, workflowId: 'replay-baseline' });
    const finished = events.find((event) => event.type === 'task.finished' && event.label === 'list');
    expect(finished?.type === 'task.finished' && finished.outIds).toHaveLength(1);
    expect(events[0]).toMatchObject({ summary: 'Swarm baseline v1 · 9 tasks · supervised', runId: 'first' });
  });

  it('gives the same events for a history prefix whatever follows it, so sequence numbers never move', async () => {
    const whole = await eventsOf('swarm-workflow');
    const { workflowId, runs } = recorded('swarm-workflow');
    const first = runs[0]?.events ?? [];
    const mapper = new RunEventMapper(workflowId, async (payload) =>
      defaultPayloadConverter.fromPayload(payload as never),
    );
    const prefix: unknown[] = [];
    for (const event of first.slice(0, 14)) prefix.push(...(await mapper.map('first', event)));
    expect(prefix.length).toBeGreaterThan(3);
    expect(prefix).toEqual(
      whole.slice(0, prefix.length).map(({ schema: _schema, seq: _seq, ...event }) => event),
    );
  });

  it("reads an agent task's own history as a run too: its steps are no tasks, its spawned worker is", async () => {
    const events = await eventsOf('agent-task-workflow');
    expect(events.map(line)).toEqual([
      'run.started',
      'task.started write → helper (spawned worker 1) agent',
      'task.finished write → helper (spawned worker 1)',
      'run.ended completed',
    ]);
  });
});
