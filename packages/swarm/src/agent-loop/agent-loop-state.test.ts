import { describe, expect, it } from 'vitest';
import type { AgentModelStepResult } from '../contracts/agent-contracts.js';
import { type AgentLoopSetup, nextAgentStep, startAgentLoop } from './agent-loop-state.js';

const setup: AgentLoopSetup = { label: 'ops', maxSpawns: 8, approvals: {}, spawnable: [], supervisor: false };
const start = { brief: 'out_brief', conversation: ['out_prompt'], maxSteps: 3 };
const usage = { calls: 1, inputTokens: 1, outputTokens: 1, totalTokens: 2 };
const withCall: AgentModelStepResult = {
  record: 'out_step_0',
  toolCalls: [{ toolCallId: 'c1', toolName: 'shell' }],
  finishReason: 'tool-calls',
  usage,
  textBytes: 0,
};
const result = { record: 'out_r', toolName: 'shell', bytes: 1, truncated: false, failed: false };

describe('nextAgentStep', () => {
  it('starts with the first model step and leaves the state it was given as it was', () => {
    const first = startAgentLoop(setup, start);
    expect(first.commands.map((command) => command.type)).toEqual(['progress', 'model-step']);

    const after = nextAgentStep(first.state, { type: 'stepped', answer: withCall });
    expect(first.state.steps).toBe(0);
    expect(first.state.conversation).toEqual(['out_prompt']);
    expect(after.state.steps).toBe(1);
    expect(after.state.calls.map((call) => call.phase)).toEqual(['running']);
  });

  it('refuses an event about a tool call the step does not hold, or in another phase', () => {
    const { state } = nextAgentStep(startAgentLoop(setup, start).state, {
      type: 'stepped',
      answer: withCall,
    });
    expect(() => nextAgentStep(state, { type: 'tool-result', call: 1, result })).toThrow(
      expect.objectContaining({ code: 'INVALID_REQUEST', message: 'step 1 holds no tool call 1' }),
    );
    expect(() =>
      nextAgentStep(state, { type: 'approval', call: 0, verdict: { approved: true, reason: 'approved' } }),
    ).toThrow('tool call c1 (shell) is in running, not approval');
  });

  it('changes nothing once it finishes: a late result is dropped', () => {
    const stepped = nextAgentStep(startAgentLoop(setup, start).state, { type: 'stepped', answer: withCall });
    const failed = nextAgentStep(stepped.state, { type: 'failed', error: 'boom' });
    expect(failed.state.phase).toBe('finishing');
    expect(failed.commands.at(-1)).toMatchObject({ type: 'finish', input: { error: 'boom' } });

    const late = nextAgentStep(failed.state, { type: 'tool-result', call: 0, result });
    expect(late).toEqual({ state: failed.state, commands: [] });
  });

  it('finishes at once when the step budget is none', () => {
    const { state, commands } = startAgentLoop(setup, { ...start, maxSteps: 0 });
    expect(state.phase).toBe('finishing');
    expect(commands.map((command) => command.type)).toEqual(['progress', 'finish']);
  });
});
