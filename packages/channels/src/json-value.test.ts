import { describe, expect, it } from 'vitest';
import { NotJsonError } from './channel-error.js';
import { adoptJsonList, isSealedJson, sealJson, sealJsonList } from './json-value.js';

function sparse(): unknown[] {
  const list: unknown[] = [1];
  list[2] = 3;
  return list;
}

describe('sealJson', () => {
  it('returns primitives as they are and turns -0 into 0', () => {
    expect(sealJson('a', 'v')).toBe('a');
    expect(sealJson(true, 'v')).toBe(true);
    expect(sealJson(null, 'v')).toBe(null);
    expect(Object.is(sealJson(-0, 'v'), 0)).toBe(true);
  });

  it('copies and deeply freezes objects, leaving the original untouched', () => {
    const original = { steps: ['a', { at: 1 }], meta: { done: false } };
    const sealed = sealJson(original, 'v') as typeof original;
    expect(sealed).toEqual(original);
    expect(sealed).not.toBe(original);
    expect(Object.isFrozen(sealed)).toBe(true);
    expect(Object.isFrozen(sealed.steps)).toBe(true);
    expect(Object.isFrozen(sealed.steps[1])).toBe(true);
    expect(Object.isFrozen(original)).toBe(false);
    original.steps.push('c');
    expect(sealed.steps).toHaveLength(2);
  });

  it('does not walk a sealed value twice', () => {
    const sealed = sealJson({ a: [1, 2] }, 'v');
    expect(sealJson(sealed, 'v')).toBe(sealed);
    expect(isSealedJson(sealed)).toBe(true);
    expect(isSealedJson({ a: 1 })).toBe(false);
    expect(isSealedJson(3)).toBe(true);
  });

  it.each([
    [{ a: undefined }, 'plan.a', 'undefined'],
    [{ a: [1, Number.NaN] }, 'plan.a[1]', 'NaN'],
    [{ a: Number.POSITIVE_INFINITY }, 'plan.a', 'Infinity'],
    [{ at: new Date(0) }, 'plan.at', 'Date'],
    [{ f: () => 1 }, 'plan.f', 'function'],
    [{ n: 10n }, 'plan.n', 'bigint'],
    [new Map(), 'plan', 'Map'],
    [sparse(), 'plan[1]', 'sparse'],
  ])('rejects %o naming the path', (value, path, reason) => {
    let caught: unknown;
    try {
      sealJson(value, 'plan');
    } catch (error) {
      caught = error;
    }
    expect(NotJsonError.isInstance(caught)).toBe(true);
    expect((caught as NotJsonError).path).toBe(path);
    expect((caught as NotJsonError).message).toContain(reason);
  });

  it('rejects cycles', () => {
    const value: Record<string, unknown> = { a: 1 };
    value.self = { back: value };
    expect(() => sealJson(value, 'v')).toThrow(/cycle/);
  });

  it('accepts the same object twice when it is not a cycle', () => {
    const shared = { x: 1 };
    expect(sealJson({ a: shared, b: shared }, 'v')).toEqual({ a: { x: 1 }, b: { x: 1 } });
  });

  it('keeps a "__proto__" key as data', () => {
    const value = JSON.parse('{"__proto__": {"polluted": true}}') as object;
    const sealed = sealJson(value, 'v') as Record<string, unknown>;
    expect(Object.keys(sealed)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(sealed)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('accepts prototype-less objects', () => {
    const value = Object.assign(Object.create(null) as object, { a: 1 });
    expect(sealJson(value, 'v')).toEqual({ a: 1 });
  });
});

describe('sealJsonList', () => {
  it('returns an unfrozen list of sealed items', () => {
    const list = sealJsonList(['a', { b: 1 }], 'log');
    expect(Object.isFrozen(list)).toBe(false);
    expect(Object.isFrozen(list[1])).toBe(true);
    list.push('c');
    expect(list).toEqual(['a', { b: 1 }, 'c']);
  });

  it('refuses holes and non-JSON items', () => {
    expect(() => sealJsonList(sparse(), 'log')).toThrow(/log\[1\] is not plain JSON: undefined/);
    expect(() => sealJsonList(['a', 1, Number.NaN], 'log')).toThrow(/log\[2\]/);
  });

  it('does not change the list it was given', () => {
    const given = ['a', { b: 1 }];
    const items = sealJsonList(given, 'log');
    expect(items).not.toBe(given);
    expect(Object.isFrozen(given[1])).toBe(false);
  });

  it('names the failing item', () => {
    expect(() => sealJsonList(['a', { b: undefined }], 'log')).toThrow(/log\[1\]\.b/);
  });
});

describe('adoptJsonList', () => {
  it('seals the items of the given list in place and returns it', () => {
    const list: unknown[] = ['a', { b: [1] }];
    const adopted = adoptJsonList(list, 'log');
    expect(adopted).toBe(list);
    expect(Object.isFrozen(adopted[1])).toBe(true);
    expect(() => adoptJsonList([() => 1], 'log')).toThrow(/log\[0\].*function/);
  });
});
