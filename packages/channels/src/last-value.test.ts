import { describe, expect, it } from 'vitest';
import { ChannelState } from './channel-state.js';
import { LastValue } from './last-value.js';

describe('LastValue', () => {
  it('starts empty, or with its initial value', () => {
    const state = new ChannelState({ a: new LastValue<number>(), b: new LastValue<number>(7) });
    expect(state.get('a')).toBeUndefined();
    expect(state.isReady('a')).toBe(false);
    expect(state.get('b')).toBe(7);
    expect(state.isReady('b')).toBe(true);
  });

  it('hands out a frozen value that is not the written object', () => {
    const state = new ChannelState({ plan: new LastValue<{ steps: string[] }>() });
    const written = { steps: ['a'] };
    state.update({ plan: written });
    written.steps.push('mutated');
    const read = state.get('plan');
    expect(read).toEqual({ steps: ['a'] });
    expect(Object.isFrozen(read)).toBe(true);
    expect(() => (read as { steps: string[] }).steps.push('x')).toThrow(TypeError);
  });
});
