import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonNestingDepth } from './json-depth.js';

describe('jsonNestingDepth', () => {
  it('counts arrays and objects, not scalars or brackets inside strings', () => {
    expect(jsonNestingDepth('1', 10)).toBe(0);
    expect(jsonNestingDepth('"[[{"', 10)).toBe(0);
    expect(jsonNestingDepth('{}', 10)).toBe(1);
    expect(jsonNestingDepth('{"a":[[1]],"b":"[[["}', 10)).toBe(3);
    expect(jsonNestingDepth('["\\"[", [2]]', 10)).toBe(2);
    expect(jsonNestingDepth('["\\\\", [2]]', 10)).toBe(2);
  });

  it('stops one past the limit on a very deep text', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    expect(jsonNestingDepth(deep, 128)).toBe(129);
  });

  it('agrees with the depth of any parsed JSON value', () => {
    const depthOf = (value: unknown): number =>
      typeof value === 'object' && value !== null ? 1 + Math.max(0, ...Object.values(value).map(depthOf)) : 0;
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        const text = JSON.stringify(value);
        expect(jsonNestingDepth(text, 100)).toBe(depthOf(JSON.parse(text)));
      }),
    );
  });
});
