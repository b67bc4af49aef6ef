import { describe, expect, it } from 'vitest';
import { heldToolCall } from './held-tool-call.js';

describe('heldToolCall', () => {
  const call = { toolCallId: 'call-1', toolName: 'shell' };

  it('marks a call its agent holds for a person, with its arguments cut for reading', () => {
    expect(heldToolCall({ toolApprovals: { shell: {} } }, call, { command: 'ls' })).toEqual({
      ...call,
      approval: { arguments: '{"command":"ls"}' },
    });
  });

  it('leaves a call as it is when no rule names its tool, or its arguments do not match', () => {
    expect(heldToolCall({}, call, { command: 'ls' })).toEqual(call);
    expect(heldToolCall({ toolApprovals: { write_file: {} } }, call, { command: 'ls' })).toEqual(call);
    const rule = { toolApprovals: { shell: { match: { command: '^rm ' } } } };
    expect(heldToolCall(rule, call, { command: 'ls' })).toEqual(call);
    expect(heldToolCall(rule, call, { command: 'rm -r x' }).approval).toEqual({
      arguments: '{"command":"rm -r x"}',
    });
  });
});
