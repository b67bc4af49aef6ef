import type { SwarmProgress, TaskProgress } from '@wharf/orchestrator';
import { describe, expect, it } from 'vitest';
import { changedLines, progressLines } from './progress-view.js';

const progress = (status: 'running' | 'done'): SwarmProgress => ({
  swarm: 's',
  status: 'running',
  step: 1,
  tasks: [
    {
      task: 'fetch',
      status,
      instances: { done: status === 'done' ? 1 : 0, total: 1 },
      bytesCaptured: 2_500_000,
      outIds: status === 'done' ? ['out_1'] : [],
      waitingFor: [],
      startedAt: 1_000,
      ...(status === 'done' ? { endedAt: 3_500 } : {}),
    },
    {
      task: 'report',
      status: 'waiting',
      instances: { done: 0, total: 1 },
      bytesCaptured: 0,
      outIds: [],
      waitingFor: ['†data.x'],
    },
  ],
});

describe('progressLines', () => {
  it('shows status, bytes, elapsed time and what a task waits for', () => {
    const [fetch, report] = progressLines(progress('running'), 4_000);
    expect(fetch).toMatch(/^▶ +fetch +running +2\.4MB +3\.0s$/);
    expect(report).toContain('waits for †data.x');
  });

  it("shows an agent task's model usage", () => {
    const done = progress('done');
    const usage = { calls: 3, inputTokens: 3000, outputTokens: 120, totalTokens: 3120, costUsd: 0.0012 };
    const [fetch] = progressLines({ ...done, tasks: [{ ...(done.tasks[0] as TaskProgress), usage }] }, 4_000);
    expect(fetch).toMatch(/^✔ +fetch +done +2\.4MB +\d+\.\ds {2}3\.0k in \/ 120 out tok · \$0\.0012$/);
  });
});

describe('text a script or a model wrote', () => {
  it('stays inside its cell: control characters shown as �, line breaks as ⏎', () => {
    const base = progress('running');
    const failed: TaskProgress = {
      ...(base.tasks[0] as TaskProgress),
      status: 'failed',
      reason: 'exit 1: \u001b[2J\u001b[Hcleared\n✔ deploy  done',
    };
    const held: SwarmProgress = {
      ...base,
      tasks: [failed],
      pendingToolCalls: [
        {
          task: 'fetch',
          callId: 'c1',
          tool: 'shell',
          arguments: '{"command":"ls"}\n\u001b[1A⏸ nothing held',
          prompt: 'Run?\u0007',
          requestedAt: 2_000,
          workflowId: 'w',
          owner: 'fetch',
        },
      ],
    };
    const lines = progressLines(held, 4_000);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain('exit 1: \ufffd[2J\ufffd[Hcleared ⏎ ✔ deploy  done');
    expect(lines[1]).toContain(
      '⏸ shell {"command":"ls"} ⏎ \ufffd[1A⏸ nothing held waits for approval: Run?\ufffd',
    );
    const changed = changedLines(held, new Map());
    expect(changed[0]).toBe('fetch: failed 2.4MB exit 1: \ufffd[2J\ufffd[Hcleared ⏎ ✔ deploy  done');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what must not come out
    for (const line of [...lines, ...changed]) expect(line).not.toMatch(/[\u0000-\u0009\u000b-\u001f\n]/);
  });
});

describe('changedLines', () => {
  it('prints a line only when a task changes', () => {
    const seen = new Map<string, string>();
    expect(changedLines(progress('running'), seen)).toEqual(['fetch: running 2.4MB', 'report: waiting']);
    expect(changedLines(progress('running'), seen)).toEqual([]);
    expect(changedLines(progress('done'), seen)).toEqual(['fetch: done 2.4MB out_1']);
  });
});

describe('live agent steps and approval gates', () => {
  const live = (step: number, toolCalls: string[]): SwarmProgress => {
    const base = progress('running');
    const [fetch, report] = base.tasks as [SwarmProgress['tasks'][number], SwarmProgress['tasks'][number]];
    return {
      ...base,
      tasks: [
        {
          ...fetch,
          instances: { done: 0, total: 2 },
          live: [
            { instance: 0, activity: 'runSubagent', attempt: 1, step, toolCalls, bytes: 1_200 },
            { instance: 1, activity: 'runSubagent', attempt: 2, bytes: 10 },
          ],
        },
        { ...report, waitingFor: [], approval: { prompt: 'Ship it?', requestedAt: 1 } },
      ],
    };
  };

  it('shows each running instance with its step, folded tool calls and attempt', () => {
    const lines = progressLines(live(3, ['search', 'search', 'read_file']), 4_000);
    expect(lines[1]).toMatch(/^ +↳ fetch#0 · step 3 · tools: search ×2, read_file · 1\.2KB$/);
    expect(lines[2]).toMatch(/↳ fetch#1 · 10 B · attempt 2$/);
    expect(lines[3]).toContain('awaits approval: Ship it? (wharf approve <run> report)');
  });

  it('logs a line each time an agent step or its tool calls change', () => {
    const seen = new Map<string, string>();
    expect(changedLines(live(1, ['search']), seen)).toEqual([
      'fetch: running 0/2 2.4MB',
      '  ↳ fetch#0 · step 1 · tools: search',
      'report: waiting awaits approval: Ship it? (wharf approve <run> report)',
    ]);
    expect(changedLines(live(1, ['search']), seen)).toEqual([]);
    expect(changedLines(live(2, ['search', 'fetch_url']), seen)).toEqual([
      '  ↳ fetch#0 · step 2 · tools: search, fetch_url',
    ]);
  });

  it("names the gate's command when the caller knows it, and says a gate's answer while its task waits", () => {
    const approveCommand = (task: string) => `wharf approve release-7 ${task} --address temporal:7233`;
    const waiting = live(1, []);
    expect(progressLines(waiting, 4_000, { approveCommand })[3]).toContain(
      'awaits approval: Ship it? (wharf approve release-7 report --address temporal:7233)',
    );
    const seen = new Map<string, string>();
    expect(changedLines(waiting, seen, { approveCommand })).toContain(
      'report: waiting awaits approval: Ship it? (wharf approve release-7 report --address temporal:7233)',
    );
    const [fetch, report] = waiting.tasks as [TaskProgress, TaskProgress];
    const gate = {
      prompt: 'Ship it?',
      requestedAt: 1,
      decision: 'approved' as const,
      by: 'ana',
      comment: 'ok',
    };
    const answered = { ...waiting, tasks: [fetch, { ...report, approval: gate }] };
    expect(changedLines(answered, seen, { approveCommand })).toEqual(['report: waiting approved by ana: ok']);
    const running = {
      ...answered,
      tasks: [fetch, { ...report, status: 'running' as const, approval: gate }],
    };
    expect(changedLines(running, seen, { approveCommand })).toEqual(['report: running']);
  });

  it('shows a tool call an agent holds for a person under its task, once, with the command that answers it', () => {
    const approveCommand = (task: string, callId?: string) =>
      `wharf approve run-9 ${task}${callId === undefined ? '' : ` --call ${callId}`}`;
    const base = progress('running');
    const held: SwarmProgress = {
      ...base,
      pendingToolCalls: [
        {
          task: 'fetch#1',
          callId: 'call-7',
          tool: 'shell',
          arguments: '{"command":"rm -rf build"}',
          prompt: 'Delete?',
          requestedAt: 2_000,
          workflowId: 'run-9-fetch-1',
          owner: 'fetch#1',
        },
      ],
    };
    const line =
      '⏸ shell {"command":"rm -rf build"} waits for approval: Delete? (wharf approve run-9 fetch#1 --call call-7)';
    const lines = progressLines(held, 4_000, { approveCommand });
    expect(lines[1]).toBe(`${' '.repeat(11)}${line}`);
    expect(lines.filter((text) => text.includes('⏸'))).toHaveLength(1);
    const seen = new Map<string, string>();
    expect(changedLines(held, seen, { approveCommand })).toContain(`  ${line}`);
    expect(changedLines(held, seen, { approveCommand })).toEqual([]);
    // Without the caller's command, the run is left for the reader.
    expect(progressLines(held, 4_000)[1]).toContain('(wharf approve <run> fetch#1 --call call-7)');
  });
});

describe('a swarm: task’s child run', () => {
  const approveCommand = (task: string, callId?: string) =>
    `wharf approve rel-1 ${task}${callId === undefined ? '' : ` --call ${callId}`}`;
  const entry = (task: string, extra: Partial<TaskProgress>): TaskProgress => ({
    task,
    status: 'running',
    instances: { done: 0, total: 1 },
    bytesCaptured: 0,
    outIds: [],
    waitingFor: [],
    ...extra,
  });
  const parent: SwarmProgress = {
    swarm: 'rel',
    status: 'waiting',
    step: 1,
    tasks: [
      entry('notes', {
        child: {
          workflowId: 'rel-1/swarm/notes',
          swarm: 'notes',
          status: 'waiting',
          step: 2,
          tasks: [
            entry('draft', { status: 'done', instances: { done: 1, total: 1 } }),
            entry('publish', { status: 'waiting', approval: { prompt: 'Publish?', requestedAt: 1 } }),
            entry('review', {}),
          ],
          pendingToolCalls: [
            {
              task: 'review',
              callId: 'call-1',
              tool: 'shell',
              arguments: '{}',
              requestedAt: 2,
              workflowId: 'rel-1/swarm/notes/agent/review',
              owner: 'review',
            },
          ],
        },
      }),
    ],
  };

  it('draws its tasks under the task, named as wharf approve <parent> takes them', () => {
    const lines = progressLines(parent, 4_000, { approveCommand });
    expect(lines[1]).toContain('↳ swarm notes (rel-1/swarm/notes): waiting (step 2)');
    expect(lines.find((line) => line.includes('notes.publish'))).toContain(
      'awaits approval: Publish? (wharf approve rel-1 notes.publish)',
    );
    expect(lines.find((line) => line.includes('⏸'))).toContain(
      '(wharf approve rel-1 notes.review --call call-1)',
    );
  });

  it('logs its tasks’ changes and held calls once, named under the task', () => {
    const seen = new Map<string, string>();
    const lines = changedLines(parent, seen, { approveCommand });
    expect(lines).toContain(
      'notes.publish: waiting awaits approval: Publish? (wharf approve rel-1 notes.publish)',
    );
    expect(lines.filter((line) => line.includes('--call call-1'))).toHaveLength(1);
    expect(changedLines(parent, seen, { approveCommand })).toEqual([]);
  });
});
