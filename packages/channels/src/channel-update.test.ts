import { describe, expect, it } from 'vitest';
import { ChannelError } from './channel-error.js';
import { ChannelUpdate } from './channel-update.js';

describe('ChannelUpdate', () => {
  it('builds from a record in key order, skipping undefined values', () => {
    const update = ChannelUpdate.from({ plan: 'p', skipped: undefined, log: ['a'] });
    expect(update.writes).toEqual([
      ['plan', 'p'],
      ['log', ['a']],
    ]);
    expect(update.step).toBeUndefined();
    expect(update.label).toBeUndefined();
  });

  it('builds from a list, keeping repeated channels', () => {
    const update = ChannelUpdate.fromList([
      ['log', 'a'],
      ['log', 'b'],
    ]);
    expect(update.writes).toEqual([
      ['log', 'a'],
      ['log', 'b'],
    ]);
  });

  it('stamps and labels without changing the original', () => {
    const update = ChannelUpdate.from({ plan: 'p' });
    const stamped = update.atStep(3).withLabel('planner');
    expect(stamped.step).toBe(3);
    expect(stamped.label).toBe('planner');
    expect(update.step).toBeUndefined();
    expect(stamped.withLabel('other').step).toBe(3);
    expect(stamped.atStep(4).label).toBe('planner');
  });

  it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])('refuses the step %d', (step) => {
    expect(() => ChannelUpdate.from({}).atStep(step)).toThrow(ChannelError);
  });

  it('round-trips through JSON', () => {
    const update = ChannelUpdate.from({ plan: 'p', log: ['a'] }, { step: 2, label: 'planner' });
    const back = ChannelUpdate.fromJSON(JSON.parse(JSON.stringify(update)));
    expect(back.writes).toEqual(update.writes);
    expect(back.step).toBe(2);
    expect(back.label).toBe('planner');
    expect(JSON.parse(JSON.stringify(ChannelUpdate.from({ a: 1 })))).toEqual({ writes: [['a', 1]] });
  });

  it.each([
    [null, /"writes" array/],
    [{ writes: 'x' }, /"writes" array/],
    [{ writes: [['a']] }, /writes\[0\]/],
    [{ writes: [[1, 2]] }, /writes\[0\]/],
    [{ writes: [], step: 'one' }, /step/],
    [{ writes: [], label: 3 }, /label/],
  ])('fromJSON refuses %j', (json, message) => {
    expect(() => ChannelUpdate.fromJSON(json)).toThrow(message);
  });
});
