import type { JsonValue } from '@wharf/common';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ContextLog } from './context-log.js';
import { parsePath } from './path.js';
import type { ContextMessage, OutputMethod } from './schemas.js';
import { valueAtPathText } from './value-at-path-text.js';
import { messageWrites, valueAt } from './writes.js';

/** What the general route says: the value at the parsed path, or `undefined` (absent or malformed). */
function general(data: JsonValue, text: string): JsonValue | undefined {
  let path: string[];
  try {
    path = parsePath(text);
  } catch {
    return undefined;
  }
  return valueAt(data, path);
}

describe('valueAtPathText', () => {
  it('finds the value of an object path without parsing it', () => {
    const data = { user: { name: 'Alex', 'tag-1': [1], $id: 0, prefs: { theme: null } } };
    expect(valueAtPathText(data, 'user.name')).toBe('Alex');
    expect(valueAtPathText(data, 'user.tag-1')).toBe(data.user['tag-1']);
    expect(valueAtPathText(data, 'user.$id')).toBe(0);
    expect(valueAtPathText(data, 'user.prefs.theme')).toBeNull();
    expect(valueAtPathText(data, 'user')).toBe(data.user);
    expect(valueAtPathText(data, '')).toBe(data);
  });

  it('leaves to the general route what it does not handle', () => {
    expect(valueAtPathText({ users: ['Alex'] }, 'users.0')).toBeUndefined(); // arrays
    expect(valueAtPathText({ 'a.b': 1 }, 'a.b')).toBeUndefined(); // a key parsePath would cut
    expect(valueAtPathText({ a: { b: 1 } }, 'a.')).toBeUndefined(); // malformed
    expect(valueAtPathText({ a: { b: 1 } }, '.a')).toBeUndefined();
    expect(valueAtPathText({ a: { b: 1 } }, 'a..b')).toBeUndefined();
    expect(valueAtPathText({ a: { b: 1 } }, 'a.c')).toBeUndefined(); // absent
    expect(valueAtPathText({ a: 1 }, 'a.b')).toBeUndefined(); // below a scalar
    expect(valueAtPathText({ ä: 1 }, 'ä')).toBeUndefined(); // non-ASCII keys
  });

  it('ignores inherited keys, as the general route does', () => {
    const data = Object.create({ inherited: 1 }) as { [key: string]: JsonValue };
    data.own = 2;
    expect(valueAtPathText(data, 'inherited')).toBeUndefined();
    expect(valueAtPathText(data, 'own')).toBe(2);
  });

  it('reads an own "__proto__" key as data', () => {
    const data = JSON.parse('{"__proto__":{"x":1}}') as JsonValue;
    expect(valueAtPathText(data, '__proto__.x')).toBe(1);
    expect(general(data, '__proto__.x')).toBe(1);
  });

  it('looks at a bounded number of keys per object', () => {
    const wide: { [key: string]: JsonValue } = {};
    for (let index = 0; index < 40; index++) wide[`k${index}`] = index;
    expect(valueAtPathText(wide, 'k3')).toBe(3);
    expect(valueAtPathText(wide, 'k39')).toBeUndefined();
    expect(general(wide, 'k39')).toBe(39);
  });

  // Keys and texts from a small alphabet with the characters that matter: the dot, digits,
  // a non-ASCII letter, a space, and keys that are prefixes of each other.
  const key = fc.constantFrom('a', 'ab', 'b', '0', '1', 'a.b', '', 'é', 'a b', '$', '-', '__proto__');
  const value: fc.Arbitrary<JsonValue> = fc.letrec<{ value: JsonValue }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.constantFrom<JsonValue>(1, 'x', null, true, 0),
      fc.array(tie('value'), { maxLength: 3 }),
      fc.dictionary(key, tie('value'), { maxKeys: 4 }).map((entries) => {
        // `fc.dictionary` writes `__proto__` as an own key; JSON.parse does the same.
        return JSON.parse(JSON.stringify(entries)) as JsonValue;
      }),
    ),
  })).value;
  const text = fc.oneof(
    fc.array(key, { maxLength: 4 }).map((segments) => segments.join('.')),
    fc.string({ unit: fc.constantFrom('a', 'b', '.', '0', '1', 'é', ' '), maxLength: 8 }),
  );

  it('never disagrees with parsePath + valueAt', () => {
    fc.assert(
      fc.property(value, text, (data, pathText) => {
        const fast = valueAtPathText(data, pathText);
        if (fast !== undefined) expect(fast).toBe(general(data, pathText));
      }),
      { numRuns: 5_000 },
    );
  });

  it('decides every object path of ASCII keys', () => {
    const asciiKey = fc.constantFrom('a', 'ab', 'b', '0', 'x_1', '$', '-');
    fc.assert(
      fc.property(fc.array(asciiKey, { minLength: 1, maxLength: 4 }), fc.integer(), (segments, leaf) => {
        let data: JsonValue = leaf;
        for (const segment of [...segments].reverse()) data = { [segment]: data, other: 1 };
        expect(valueAtPathText(data, segments.join('.'))).toBe(leaf);
      }),
    );
  });

  it('lets ContextLog.append refuse exactly the messages messageWrites refuses', () => {
    const method = fc.constantFrom<OutputMethod | undefined>(undefined, 'set', 'merge', 'push', 'concat');
    fc.assert(
      fc.property(value, text, method, (data, pathText, outputMethod) => {
        const message: ContextMessage = { type: 'data', data, _path: pathText };
        if (outputMethod !== undefined) message._outputMethod = outputMethod;
        let expected: string | undefined;
        try {
          messageWrites(message);
        } catch (error) {
          expected = (error as Error).message;
        }
        const log = new ContextLog();
        let actual: string | undefined;
        try {
          log.append(message);
        } catch (error) {
          actual = (error as Error).message;
        }
        expect(actual === undefined, `${pathText} ${JSON.stringify(data)}`).toBe(expected === undefined);
        if (expected !== undefined) expect(actual).toBe(`message 0: ${expected}`);
        expect(log.length).toBe(expected === undefined ? 1 : 0);
      }),
      { numRuns: 3_000 },
    );
  });
});
