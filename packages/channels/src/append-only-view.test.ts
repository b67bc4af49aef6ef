import { describe, expect, it } from 'vitest';
import { appendOnlyView } from './append-only-view.js';

describe('appendOnlyView', () => {
  it('reads like an array of the first `length` items', () => {
    const list = ['a', 'b', 'c'];
    const view = appendOnlyView(list, 2);
    expect(Array.isArray(view)).toBe(true);
    expect(view.length).toBe(2);
    expect(view[0]).toBe('a');
    expect(view[1]).toBe('b');
    expect(view[2]).toBeUndefined();
    expect(view).toEqual(['a', 'b']);
    expect([...view]).toEqual(['a', 'b']);
    expect(view.map((item) => item.toUpperCase())).toEqual(['A', 'B']);
    expect(view.slice(1)).toEqual(['b']);
    expect(view.includes('c')).toBe(false);
    expect(view.at(-1)).toBe('b');
    expect(Object.keys(view)).toEqual(['0', '1']);
    expect(1 in view).toBe(true);
    expect(2 in view).toBe(false);
    expect(JSON.stringify(view)).toBe('["a","b"]');
    expect(JSON.stringify({ log: view })).toBe('{"log":["a","b"]}');
  });

  it("gives util.inspect (so console.log) its items through the inspect symbol, not the empty target's", () => {
    const list = ['a', 'b', 'c'];
    const view = appendOnlyView(list, 2);
    // Node reads the formatter from the proxy's target and calls it on the view.
    const format = Reflect.get(view, Symbol.for('nodejs.util.inspect.custom')) as (this: unknown) => unknown;
    const printed = format.call(view);
    expect(printed).toEqual(['a', 'b']);
    expect(Array.isArray(printed) && printed !== view).toBe(true);
    // The formatter is no item: keys, spreading and JSON are as before.
    expect(Object.keys(view)).toEqual(['0', '1']);
    expect({ ...view }).toEqual({ 0: 'a', 1: 'b' });
    expect(JSON.stringify(view)).toBe('["a","b"]');
  });

  it('does not take non-canonical index keys as indices', () => {
    const view = appendOnlyView(['a', 'b'], 2) as unknown as Record<string, unknown>;
    for (const key of ['01', '1.0', '1e0', ' 1', '-0', '', '0x1']) expect(view[key]).toBeUndefined();
  });

  it('refuses every change, and the list stays as it was', () => {
    const list = [{ n: 1 }, { n: 2 }];
    const view = appendOnlyView(list, 2) as { n: number }[];
    const attempts: (() => unknown)[] = [
      () => {
        view[0] = { n: 9 };
      },
      () => {
        view[2] = { n: 9 };
      },
      () => view.push({ n: 3 }),
      () => view.pop(),
      () => view.splice(0, 1),
      () => view.reverse(),
      () => view.sort(),
      () => view.fill({ n: 0 }),
      () => {
        view.length = 0;
      },
      () => {
        delete view[0];
      },
      () => Object.defineProperty(view, 0, { value: { n: 9 } }),
      () => Object.setPrototypeOf(view, null),
      () => Object.freeze(view),
    ];
    for (const attempt of attempts) expect(attempt).toThrow(TypeError);
    expect(list).toEqual([{ n: 1 }, { n: 2 }]);
    expect(view).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it('keeps showing what it showed when the list grows', () => {
    const list = ['a'];
    const view = appendOnlyView(list, list.length);
    list.push('b', 'c');
    expect(view).toEqual(['a']);
    expect(view.length).toBe(1);
    expect(appendOnlyView(list, list.length)).toEqual(['a', 'b', 'c']);
  });

  it('describes its items as read-only properties', () => {
    const view = appendOnlyView(['a'], 1);
    expect(Object.getOwnPropertyDescriptor(view, 0)).toEqual({
      value: 'a',
      writable: false,
      enumerable: true,
      configurable: true,
    });
    expect(Object.getOwnPropertyDescriptor(view, 'length')?.value).toBe(1);
    expect(Object.getOwnPropertyDescriptor(view, 1)).toBeUndefined();
  });
});
