import { describe, expect, it } from 'vitest';
import { cloneJson, deepMergeInto, toJsonValue } from './json.js';
import { messageWrites } from './writes.js';

describe('JSON values', () => {
  it('toJsonValue copies JSON and names what is not JSON', () => {
    const source = { a: [1, { b: 'x' }], c: null };
    const copy = toJsonValue(source, 'result');
    expect(copy).toEqual(source);
    expect(copy).not.toBe(source);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => toJsonValue(cyclic, 'result')).toThrow(/result\.self: circular reference/);
    expect(() => toJsonValue({ n: Number.NaN }, 'result')).toThrow(/result\.n: NaN is not a JSON number/);
    expect(() => toJsonValue([undefined], 'result')).toThrow(/result\[0\]: undefined is not a JSON value/);
    expect(() => toJsonValue({ when: new Date(0) }, 'result')).toThrow(/result\.when: only plain objects/);
    expect(toJsonValue({ shared: [1], again: [1] }, 'result')).toEqual({ shared: [1], again: [1] });
    expect(toJsonValue({ kept: 1, dropped: undefined }, 'result')).toEqual({ kept: 1 });
  });

  it('deepMergeInto merges nested objects and replaces everything else', () => {
    const target = { a: { b: 1, list: [1] }, keep: true };
    deepMergeInto(target, { a: { c: 2, list: [2] } });
    expect(target).toEqual({ a: { b: 1, c: 2, list: [2] }, keep: true });
    expect(cloneJson(target)).toEqual(target);
  });
});

describe('messageWrites', () => {
  it('a hand-written message sets each leaf; arrays and {} are leaves', () => {
    expect(messageWrites({ type: 'data', data: { user: { name: 'A', tags: ['x'], meta: {} } } })).toEqual([
      { path: ['user', 'name'], method: 'set', value: 'A' },
      { path: ['user', 'tags'], method: 'set', value: ['x'] },
      { path: ['user', 'meta'], method: 'set', value: {} },
    ]);
    expect(messageWrites({ type: 'data', data: 'plain' })).toEqual([
      { path: [], method: 'set', value: 'plain' },
    ]);
    expect(messageWrites({ type: 'user', content: 'no data' })).toEqual([]);
  });

  it('a message with _path writes once there; other methods without _path write at the root', () => {
    expect(
      messageWrites({ type: 'data', data: { a: { b: { c: 1 } } }, _path: 'a.b', _outputMethod: 'merge' }),
    ).toEqual([{ path: ['a', 'b'], method: 'merge', value: { c: 1 } }]);
    expect(messageWrites({ type: 'data', data: [1, 2], _outputMethod: 'concat' })).toEqual([
      { path: [], method: 'concat', value: [1, 2] },
    ]);
    expect(() => messageWrites({ type: 'data', data: 1, _outputMethod: 'concat' })).toThrow(
      /concat needs an array/,
    );
  });
});
