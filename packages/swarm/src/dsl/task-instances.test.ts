import { describe, expect, it } from 'vitest';
import { instanceLabel, isLooped } from './task-instances.js';

describe('isLooped', () => {
  it('is true for a map loop of any length and a repeat loop of more than one', () => {
    expect(isLooped({ loop: { type: 'map', over: '†data.list' } })).toBe(true);
    expect(isLooped({ loop: { type: 'repeat', count: 2 } })).toBe(true);
    expect(isLooped({ loop: { type: 'repeat', count: 1 } })).toBe(false);
    expect(isLooped({})).toBe(false);
  });

  it('labels the instances of a looped task only', () => {
    expect(instanceLabel('each', { loop: { type: 'map', over: '†data.list' } }, 0)).toBe('each#0');
    expect(instanceLabel('once', { loop: { type: 'repeat', count: 1 } }, 0)).toBe('once');
  });
});
