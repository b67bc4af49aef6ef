import type {
  AgentFinishInput,
  AgentLoopSetup,
  AgentModelStepResult,
  AgentStepInput,
  AgentToolCallInput,
  AgentToolCallRef,
  AgentToolCallResult,
  AgentUsage,
  SpawnOutcome,
  SpawnRequest,
  SubagentResult,
  ToolApprovalRule,
} from '@wharf/swarm';
import { ToolCallApprovals } from '@wharf/swarm';
import { describe, expect, it } from 'vitest';
import { type AgentPort, driveAgent } from './agent-driver.js';

const setup: AgentLoopSetup = {
  label: 'review#2',
  maxSpawns: 8,
  approvals: {},
  spawnable: ['helper'],
  supervisor: false,
};

const usage = (calls: number, tokens: number): AgentUsage => ({
  calls,
  inputTokens: tokens,
  outputTokens: 0,
  totalTokens: tokens,
});

/** A model step answer: a final answer, or the tool calls named (`shell:c1`, `shell:c2!` for a held call). */
function answer(step: number, ...calls: string[]): AgentModelStepResult {
  return {
    record: `out_step_${step}`,
    toolCalls: calls.map((spec): AgentToolCallRef => {
      const held = spec.endsWith('!');
      const [toolName, toolCallId] = spec.replace('!', '').split(':') as [string, string];
      return { toolCallId, toolName, ...(held ? { approval: { arguments: `{"id":"${toolCallId}"}` } } : {}) };
    }),
    finishReason: calls.length === 0 ? 'stop' : 'tool-calls',
    usage: usage(1, 10),
    textBytes: 5,
  };
}

class Cancelled extends Error {}

/** What a person (or nobody) answers a held call with. */
type Answer = { approve: boolean; comment?: string; by?: string } | 'timeout';

/**
 * A port whose activities answer from a script: the model's step answers in order, tool calls
 * after `ticks` microtasks of their own, approvals from `answers` (decided by the real
 * ToolCallApprovals on a clock the port moves), workers from `workers`. It logs every call.
 */
class FakePort implements AgentPort {
  readonly log: string[] = [];
  readonly progressLines: string[] = [];
  readonly stepInputs: AgentStepInput[] = [];
  readonly toolCalls: AgentToolCallInput[] = [];
  readonly waits: { call: string; timeoutMs: number | undefined }[] = [];
  readonly spawnedAs: number[] = [];
  finished: AgentFinishInput | undefined;
  clock = 0;
  readonly #approvals = new ToolCallApprovals();

  constructor(
    readonly answers: AgentModelStepResult[],
    readonly options: {
      maxSteps?: number;
      ticks?: Record<string, number>;
      failing?: Record<string, Error>;
      held?: Record<string, Answer>;
      requests?: Record<string, SpawnRequest | { error: string }>;
      workers?: Record<string, SpawnOutcome>;
    } = {},
  ) {}

  async start() {
    this.log.push('start');
    return { brief: 'out_brief', conversation: ['out_prompt'], maxSteps: this.options.maxSteps ?? 8 };
  }

  async modelStep(input: AgentStepInput) {
    this.log.push(`model-step ${input.step}`);
    this.stepInputs.push(input);
    const next = this.answers[input.step];
    if (next === undefined) throw new Error(`no answer scripted for step ${input.step}`);
    return next;
  }

  async toolCall(input: AgentToolCallInput): Promise<AgentToolCallResult> {
    this.log.push(`tool-call ${input.toolCallId}`);
    this.toolCalls.push(input);
    for (let tick = 0; tick < (this.options.ticks?.[input.toolCallId] ?? 0); tick++) await Promise.resolve();
    const failing = this.options.failing?.[input.toolCallId];
    if (failing !== undefined) throw failing;
    this.log.push(`tool-result ${input.toolCallId}`);
    return {
      record: `out_result_${input.toolCallId}`,
      toolName: 'tool',
      bytes: 1,
      truncated: false,
      failed: false,
      ...(input.toolCallId.startsWith('emit') ? { emitted: `out_emitted_${input.toolCallId}` } : {}),
    };
  }

  async awaitApproval(call: AgentToolCallRef, rule: ToolApprovalRule, show: (note: string) => void) {
    this.log.push(`await-approval ${call.toolCallId}`);
    this.waits.push({ call: call.toolCallId, timeoutMs: rule.timeout });
    const base = {
      task: setup.label,
      tool: call.toolName,
      arguments: '',
      workflowId: 'wf',
      owner: setup.label,
    };
    this.#approvals.open({ ...base, callId: call.toolCallId }, rule, this.clock);
    show(`waits for approval of ${call.toolName}`);
    await Promise.resolve();
    const reply = this.options.held?.[call.toolCallId] ?? 'timeout';
    if (reply === 'timeout') this.clock += rule.timeout ?? Number.POSITIVE_INFINITY;
    else this.#approvals.answer({ callId: call.toolCallId, ...reply }, this.clock);
    const verdict = this.#approvals.verdict(call.toolCallId, this.clock);
    if (!verdict.decided) throw new Error(`${call.toolCallId} waits forever: no answer and no timeout`);
    return { approved: verdict.approved, reason: verdict.reason };
  }

  async spawnRequest(input: AgentToolCallInput) {
    this.log.push(`spawn-request ${input.toolCallId}`);
    return this.options.requests?.[input.toolCallId] ?? { agent: 'helper', prompt: 'Check.', inputs: {} };
  }

  async spawnWorker(request: SpawnRequest, n: number): Promise<SpawnOutcome> {
    this.log.push(`spawn-worker ${n} ${request.agent}`);
    this.spawnedAs.push(n);
    return (
      this.options.workers?.[request.agent] ?? {
        workflowId: `wf/agent/review/spawn/${n}`,
        agent: request.agent,
        result: {
          status: 'ok',
          compact: `worker ${n} ok`,
          outputs: [{ outId: `out_worker_${n}` }],
          usage: usage(2, 100),
        },
      }
    );
  }

  async finish(input: AgentFinishInput): Promise<SubagentResult> {
    this.log.push(input.error === undefined ? 'finish' : `finish: ${input.error}`);
    this.finished = input;
    return {
      status: input.error === undefined ? 'ok' : 'failed',
      outputs: input.emitted.map((outId) => ({ outId })),
      compact: '',
      bytes: 0,
      durationMs: 0,
      preview: '',
      usage: input.usage,
    };
  }

  progress(text: string): void {
    this.progressLines.push(text);
  }

  failure(error: unknown): string | undefined {
    return error instanceof Cancelled ? undefined : (error as Error).message;
  }
}

describe('driveAgent', () => {
  it('calls the model step by step until its final answer, then hands in the conversation', async () => {
    const port = new FakePort([answer(0, 'shell:c1'), answer(1, 'read_file:c2'), answer(2)]);
    const result = await driveAgent(port, setup);

    expect(port.log).toEqual([
      'start',
      'model-step 0',
      'tool-call c1',
      'tool-result c1',
      'model-step 1',
      'tool-call c2',
      'tool-result c2',
      'model-step 2',
      'finish',
    ]);
    expect(port.stepInputs.map((input) => input.conversation)).toEqual([
      ['out_prompt'],
      ['out_prompt', 'out_step_0', 'out_result_c1'],
      ['out_prompt', 'out_step_0', 'out_result_c1', 'out_step_1', 'out_result_c2'],
    ]);
    expect(port.finished).toEqual({
      brief: 'out_brief',
      conversation: [
        'out_prompt',
        'out_step_0',
        'out_result_c1',
        'out_step_1',
        'out_result_c2',
        'out_step_2',
      ],
      emitted: [],
      usage: usage(3, 30),
    });
    expect(result.status).toBe('ok');
    expect(port.progressLines).toEqual([
      '**review#2** · agent · step 1 of 8 · model call',
      '**review#2** · agent · step 1 of 8 · shell · 10 in / 0 out tok',
      '**review#2** · agent · step 2 of 8 · model call · 10 in / 0 out tok',
      '**review#2** · agent · step 2 of 8 · read_file · 20 in / 0 out tok',
      '**review#2** · agent · step 3 of 8 · model call · 20 in / 0 out tok',
      '**review#2** · agent · step 8 of 8 · finishing · 30 in / 0 out tok',
    ]);
  });

  it('runs a step’s tool calls at once and hands their results to the model in the order it made them', async () => {
    const port = new FakePort([answer(0, 'shell:c1', 'emit:emit2', 'emit:emit3'), answer(1)], {
      ticks: { c1: 6, emit2: 3 },
    });
    await driveAgent(port, { ...setup, dataPlane: { id: 'plane-1', description: 'store memory' } });

    // All three started before any ended; the last made ended first.
    expect(port.log.slice(2, 8)).toEqual([
      'tool-call c1',
      'tool-call emit2',
      'tool-call emit3',
      'tool-result emit3',
      'tool-result emit2',
      'tool-result c1',
    ]);
    expect(
      port.toolCalls.map(({ toolCallId, seq, step, record }) => ({ toolCallId, seq, step, record })),
    ).toEqual([
      { toolCallId: 'c1', seq: 1, step: 0, record: 'out_step_0' },
      { toolCallId: 'emit2', seq: 2, step: 0, record: 'out_step_0' },
      { toolCallId: 'emit3', seq: 3, step: 0, record: 'out_step_0' },
    ]);
    expect(port.toolCalls.every((call) => call.dataPlane?.id === 'plane-1')).toBe(true);
    expect(port.stepInputs[1]?.conversation).toEqual([
      'out_prompt',
      'out_step_0',
      'out_result_c1',
      'out_result_emit2',
      'out_result_emit3',
    ]);
    expect(port.finished?.emitted).toEqual(['out_emitted_emit2', 'out_emitted_emit3']);
  });

  it('numbers tool calls across steps, and lets the model go on after invalid tool calls', async () => {
    const invalid: AgentModelStepResult = { ...answer(1), finishReason: 'invalid-tool-calls' };
    const port = new FakePort([answer(0, 'shell:a', 'shell:b'), invalid, answer(2, 'shell:c'), answer(3)]);
    await driveAgent(port, setup);

    expect(port.toolCalls.map((call) => [call.toolCallId, call.step, call.seq])).toEqual([
      ['a', 0, 1],
      ['b', 0, 2],
      ['c', 2, 3],
    ]);
    expect(port.log.filter((entry) => entry.startsWith('model-step'))).toHaveLength(4);
  });

  describe('a tool call held for a person', () => {
    const approvals: Record<string, ToolApprovalRule> = {
      shell: { on_timeout: 'reject', timeout: 60_000 },
      deploy: { on_timeout: 'approve', timeout: 5_000 },
    };

    it('waits first, and runs once approved', async () => {
      const port = new FakePort([answer(0, 'read_file:c1', 'shell:c2!'), answer(1)], {
        held: { c2: { approve: true, by: 'ana' } },
      });
      await driveAgent(port, { ...setup, approvals });

      // The held call starts waiting before its sibling runs.
      expect(port.log.slice(2, 6)).toEqual([
        'await-approval c2',
        'tool-call c1',
        'tool-result c1',
        'tool-call c2',
      ]);
      expect(port.waits).toEqual([{ call: 'c2', timeoutMs: 60_000 }]);
      expect(port.toolCalls.find((call) => call.toolCallId === 'c2')?.rejected).toBeUndefined();
      expect(port.progressLines).toContain(
        '**review#2** · agent · step 1 of 8 · waits for approval of shell · 10 in / 0 out tok',
      );
    });

    it('does not run once rejected: the model is told why', async () => {
      const port = new FakePort([answer(0, 'shell:c1!'), answer(1)], {
        held: { c1: { approve: false, comment: 'not now', by: 'ana' } },
      });
      await driveAgent(port, { ...setup, approvals });

      expect(port.toolCalls).toEqual([
        {
          brief: 'out_brief',
          step: 0,
          record: 'out_step_0',
          toolCallId: 'c1',
          seq: 1,
          rejected: 'rejected by ana: not now',
        },
      ]);
      expect(port.finished?.conversation).toEqual([
        'out_prompt',
        'out_step_0',
        'out_result_c1',
        'out_step_1',
      ]);
    });

    it('is decided by its rule past its timeout: rejected, or approved', async () => {
      const port = new FakePort([answer(0, 'shell:c1!', 'deploy:c2!'), answer(1)]);
      await driveAgent(port, { ...setup, approvals });

      expect(port.waits).toEqual([
        { call: 'c1', timeoutMs: 60_000 },
        { call: 'c2', timeoutMs: 5_000 },
      ]);
      expect(port.toolCalls.map((call) => [call.toolCallId, call.rejected])).toEqual([
        ['c1', 'rejected by timeout'],
        ['c2', undefined],
      ]);
    });

    it('waits with no timeout when its tool names no rule', async () => {
      const port = new FakePort([answer(0, 'shell:c1!'), answer(1)], { held: { c1: { approve: true } } });
      await driveAgent(port, setup);

      expect(port.waits).toEqual([{ call: 'c1', timeoutMs: undefined }]);
    });
  });

  describe('spawn_worker', () => {
    it('starts the worker it asks for and hands the model its compact payload; its usage counts', async () => {
      const port = new FakePort([answer(0, 'spawn_worker:s1'), answer(1)]);
      await driveAgent(port, setup);

      expect(port.log.slice(2, 6)).toEqual([
        'spawn-request s1',
        'spawn-worker 1 helper',
        'tool-call s1',
        'tool-result s1',
      ]);
      expect(port.toolCalls[0]?.spawned).toEqual({
        workflowId: 'wf/agent/review/spawn/1',
        agent: 'helper',
        status: 'ok',
        compact: 'worker 1 ok',
        outputs: ['out_worker_1'],
      });
      expect(port.finished?.usage).toEqual(usage(4, 120));
    });

    it('hands the model a failed worker as the call’s result: the task goes on', async () => {
      const port = new FakePort([answer(0, 'spawn_worker:s1'), answer(1)], {
        workers: { helper: { workflowId: 'wf/agent/review/spawn/1', failure: 'model exploded' } },
      });
      const result = await driveAgent(port, setup);

      expect(port.toolCalls[0]?.spawned).toEqual({
        error: 'spawned worker wf/agent/review/spawn/1 failed: model exploded',
      });
      expect(result.status).toBe('ok');
      expect(port.finished?.usage).toEqual(usage(2, 20));
    });

    it('spawns nothing for a refused request or an agent it may not start', async () => {
      const port = new FakePort([answer(0, 'spawn_worker:s1', 'spawn_worker:s2'), answer(1)], {
        requests: {
          s1: { error: 'spawn_worker needs a prompt' },
          s2: { agent: 'boss', prompt: 'Take over.', inputs: {} },
        },
      });
      await driveAgent(port, setup);

      expect(port.spawnedAs).toEqual([]);
      expect(port.toolCalls.map((call) => call.spawned)).toEqual([
        { error: 'spawn_worker needs a prompt' },
        { error: 'no agent "boss" to spawn' },
      ]);
    });

    it('spends the spawn budget: past max_spawns a call gets the limit, and a rejected call spends none', async () => {
      const port = new FakePort(
        [answer(0, 'spawn_worker:s1!', 'spawn_worker:s2', 'spawn_worker:s3'), answer(1)],
        {
          held: { s1: { approve: false } },
        },
      );
      await driveAgent(port, { ...setup, maxSpawns: 1 });

      expect(port.spawnedAs).toEqual([1]);
      const decided = Object.fromEntries(
        port.toolCalls.map((call) => [call.toolCallId, call.rejected ?? call.spawned]),
      );
      expect(decided).toEqual({
        s1: 'rejected',
        s2: expect.objectContaining({ agent: 'helper', status: 'ok' }),
        s3: { error: 'spawn limit reached: this task may spawn 1 workers' },
      });
    });
  });

  describe('limits', () => {
    it('ends at max_steps without an error when the model never stops calling tools', async () => {
      const port = new FakePort([answer(0, 'shell:a'), answer(1, 'shell:b'), answer(2, 'shell:c')], {
        maxSteps: 2,
      });
      const result = await driveAgent(port, setup);

      expect(port.log).toEqual([
        'start',
        'model-step 0',
        'tool-call a',
        'tool-result a',
        'model-step 1',
        'tool-call b',
        'tool-result b',
        'finish',
      ]);
      expect(port.finished?.conversation.at(-1)).toBe('out_result_b');
      expect(result.status).toBe('ok');
      expect(port.progressLines.at(-1)).toBe(
        '**review#2** · agent · step 2 of 2 · finishing · 20 in / 0 out tok',
      );
    });

    it('ends with the error of a step that failed for good, without waiting for the calls still running', async () => {
      const port = new FakePort([answer(0, 'shell:slow', 'shell:bad'), answer(1)], {
        ticks: { slow: 10 },
        failing: { bad: new Error('disk on fire') },
      });
      const result = await driveAgent(port, setup);

      expect(result.status).toBe('failed');
      expect(port.finished?.error).toBe('disk on fire');
      expect(port.finished?.conversation).toEqual(['out_prompt', 'out_step_0']);
      expect(port.log).not.toContain('tool-result slow');
      expect(port.progressLines.at(-1)).toBe(
        '**review#2** · agent · step 8 of 8 · failed: disk on fire · 10 in / 0 out tok',
      );
      // The slow call ends later and changes nothing.
      for (let tick = 0; tick < 20; tick++) await Promise.resolve();
      expect(
        port.log.filter((entry) => entry.startsWith('model-step') || entry.startsWith('finish')),
      ).toEqual(['model-step 0', 'finish: disk on fire']);
    });

    it('throws a cancellation instead of finishing', async () => {
      const port = new FakePort([answer(0, 'shell:c1')], { failing: { c1: new Cancelled('cancelled') } });
      await expect(driveAgent(port, setup)).rejects.toBeInstanceOf(Cancelled);
      expect(port.finished).toBeUndefined();
    });

    it('reports a supervisor’s most evidence bytes mounted into one call', async () => {
      const port = new FakePort([
        { ...answer(0, 'shell:c1'), evidenceBytes: 900 },
        { ...answer(1), evidenceBytes: 300 },
      ]);
      await driveAgent(port, { ...setup, supervisor: true });

      expect(port.finished?.evidenceBytes).toBe(900);
    });
  });
});
