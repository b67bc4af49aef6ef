import { describe, expect, it } from 'vitest';
import { RecentMap } from './recent-map.js';

describe('RecentMap', () => {
  it('drops the least recently used past its capacity, a read counting as a use', () => {
    const map = new RecentMap<string, number>(2);
    map.set('a', 1);
    map.set('b', 2);
    expect(map.get('a')).toBe(1);
    map.set('c', 3);
    expect([map.get('a'), map.get('b'), map.get('c')]).toEqual([1, undefined, 3]);
    map.set('a', 10);
    map.set('d', 4);
    expect([map.get('a'), map.get('c'), map.get('d'), map.size]).toEqual([10, undefined, 4, 2]);
  });

  it('keeps nothing with a capacity of 0, and forgets a deleted key', () => {
    const none = new RecentMap<string, number>(0);
    none.set('a', 1);
    expect([none.get('a'), none.size]).toEqual([undefined, 0]);
    const map = new RecentMap<string, number>(2);
    map.set('a', 1);
    expect(map.delete('a')).toBe(true);
    expect([map.get('a'), map.delete('a')]).toEqual([undefined, false]);
  });
});
