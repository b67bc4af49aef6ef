import { describe, expect, it } from 'vitest';
import { WharfOrchestratorError } from '../orchestrator-error.js';
import {
  callNeedsApproval,
  callPreview,
  TOOL_CALL_PREVIEW_CHARS,
  ToolCallApprovals,
} from './tool-call-approvals.js';

const call = {
  task: 'ops#1',
  callId: 'call-0-0',
  tool: 'shell',
  arguments: '{"command":"rm -rf dist"}',
  workflowId: 'run/agent/ops#1',
  owner: 'ops#1',
};

describe('ToolCallApprovals', () => {
  it('holds a call until it is answered, once; a second answer and an unknown call are refused', () => {
    const held = new ToolCallApprovals();
    const pending = held.open(call, { on_timeout: 'reject', prompt: 'Run it?' }, 1_000);
    expect(pending).toEqual({ ...call, prompt: 'Run it?', requestedAt: 1_000 });
    expect(held.pending()).toEqual([pending]);
    expect(held.verdict('call-0-0', 999_999)).toEqual({ decided: false });
    expect(held.answered('call-0-0')).toBe(false);

    expect(
      held.answer({ callId: 'call-0-0', approve: false, comment: 'not dist', by: 'ana' }, 2_000),
    ).toEqual({
      task: 'ops#1',
      callId: 'call-0-0',
      tool: 'shell',
      decision: 'rejected',
    });
    expect(held.answered('call-0-0')).toBe(true);
    expect(held.verdict('call-0-0', 2_000)).toEqual({
      decided: true,
      approved: false,
      reason: 'rejected by ana: not dist',
    });
    expect(held.pending()).toEqual([]);

    const again = () => held.check({ callId: 'call-0-0', approve: true });
    expect(again).toThrow(/tool call call-0-0 \(shell\) of ops#1 was already rejected/);
    expect(() => held.answer({ callId: 'call-9', approve: true }, 3_000)).toThrow(
      /no tool call call-9 waits for an answer here/,
    );
    try {
      again();
    } catch (error) {
      expect(WharfOrchestratorError.isInstance(error) && error.code).toBe('INVALID_REQUEST');
    }
  });

  it('decides an unanswered call by its on_timeout once its deadline passed', () => {
    const held = new ToolCallApprovals();
    const rejecting = held.open(call, { on_timeout: 'reject', timeout: 60_000 }, 1_000);
    expect(rejecting.deadline).toBe(61_000);
    const approving = held.open(
      { ...call, callId: 'call-0-1' },
      { on_timeout: 'approve', timeout: 10 },
      1_000,
    );
    expect(held.verdict('call-0-0', 60_999)).toEqual({ decided: false });
    expect(held.verdict('call-0-0', 61_000)).toEqual({
      decided: true,
      approved: false,
      reason: 'rejected by timeout',
    });
    expect(held.verdict(approving.callId, 1_010)).toEqual({
      decided: true,
      approved: true,
      reason: 'approved by timeout',
    });
    expect(() => held.check({ callId: 'call-0-0', approve: true })).toThrow(/already rejected by timeout/);
  });
});

describe('callNeedsApproval', () => {
  it('holds every call without match, and with match only calls whose named arguments all match', () => {
    expect(callNeedsApproval({}, { command: 'ls' })).toBe(true);
    const rule = { match: { command: '^(rm|git push)\\b' } };
    expect(callNeedsApproval(rule, { command: 'rm -rf dist' })).toBe(true);
    expect(callNeedsApproval(rule, { command: 'git push origin main' })).toBe(true);
    expect(callNeedsApproval(rule, { command: 'ls -la' })).toBe(false);
    expect(callNeedsApproval(rule, {})).toBe(false);
    expect(callNeedsApproval(rule, 'rm')).toBe(false);
    // A value that is not a string is matched as JSON.
    expect(callNeedsApproval({ match: { depth: '^[3-9]$' } }, { depth: 4 })).toBe(true);
    expect(
      callNeedsApproval({ match: { path: '^/etc/', mode: 'w' } }, { path: '/etc/hosts', mode: 'r' }),
    ).toBe(false);
  });
});

describe('callPreview', () => {
  it('shows the arguments as JSON, cut to a bounded length', () => {
    expect(callPreview({ command: 'ls' })).toBe('{"command":"ls"}');
    const long = callPreview({ body: 'é'.repeat(5_000) });
    expect(Array.from(long)).toHaveLength(TOOL_CALL_PREVIEW_CHARS);
    expect(long.endsWith('…')).toBe(true);
  });
});
