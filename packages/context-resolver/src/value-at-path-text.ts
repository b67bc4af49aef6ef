import type { JsonObject, JsonValue } from '@wharf/common';

const hasOwn = Object.prototype.hasOwnProperty;

/** Own keys looked at per object before giving up (the general route has no such limit). */
const MAX_KEYS_PER_LEVEL = 16;

/**
 * The value at the dot path `text` inside `data`, found without parsing `text` or hashing it:
 * at each level the object's own keys (which the engine already holds as unique strings) are
 * matched against the text in place. Gives the same value as `valueAt(data, parsePath(text))`
 * whenever it returns one; returns `undefined` for anything it does not handle (an array on the
 * way, a key with characters outside `[A-Za-z0-9_$-]`, an object with many keys, a malformed or
 * absent path), never a wrong answer: the caller then takes the general route, which also names
 * what is wrong. This is what lets `ContextLog.append` check a message for little more than
 * reading it.
 *
 * @example
 * ```ts
 * valueAtPathText({ user: { name: 'Alex' } }, 'user.name'); // 'Alex'
 * valueAtPathText({ users: ['Alex'] }, 'users.0'); // undefined: arrays take the general route
 * ```
 */
export function valueAtPathText(data: JsonValue, text: string): JsonValue | undefined {
  const end = text.length;
  let current: JsonValue = data;
  let position = 0;
  // The walk of `ownKeyAt`, written out again: calling the function the index's catch-up also
  // calls made the append check about 10% slower in A/B runs.
  while (position < end) {
    if (typeof current !== 'object' || current === null || Array.isArray(current)) return undefined;
    // Array.isArray does not rule out a read-only array in the type, only at run time.
    const object = current as JsonObject;
    let next: JsonValue | undefined;
    let matched = '';
    let seen = 0;
    for (const key in object) {
      if (isSegmentAt(key, text, position)) {
        if (!hasOwn.call(object, key)) return undefined;
        next = object[key];
        matched = key;
        break;
      }
      if (++seen === MAX_KEYS_PER_LEVEL) return undefined;
    }
    if (next === undefined) return undefined;
    current = next;
    position += matched.length + 1;
  }
  // Each matched segment moves past its '.', so a whole path ends one past the text; a path
  // ending in '.' ('a.') stops right at its end.
  return position === end + 1 || end === 0 ? current : undefined;
}

/**
 * The own key of the plain object `value` that is the whole segment of the dot path `text`
 * starting at `position`, or `undefined` when `value` is not a plain object or this cannot
 * tell (see {@link valueAtPathText}). The key is the object's own string, which the engine
 * keeps unique, so it is a cheap map key for walking a trie along the path.
 *
 * @example
 * ```ts
 * ownKeyAt({ user: { name: 'Alex' } }, 'user.name', 0); // 'user'
 * ```
 */
export function ownKeyAt(value: JsonValue, text: string, position: number): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const object = value as JsonObject;
  let seen = 0;
  // `for…in` walks the engine's cached key list; inherited keys are ruled out below.
  for (const key in object) {
    if (isSegmentAt(key, text, position)) {
      // V8 optimizes `hasOwnProperty` of the `for…in` key inside the loop; `Object.hasOwn` after
      // it stayed a builtin call (measured: about 10% of an append).
      return object[key] !== undefined && hasOwn.call(object, key) ? key : undefined;
    }
    if (++seen === MAX_KEYS_PER_LEVEL) return undefined;
  }
  return undefined;
}

/**
 * True when `key` is the whole segment of `text` starting at `position`: the same characters,
 * followed by '.' or the end, and made only of ASCII key characters (so `parsePath` would cut
 * the text at exactly this segment).
 */
function isSegmentAt(key: string, text: string, position: number): boolean {
  const length = key.length;
  const after = position + length;
  if (length === 0 || after > text.length) return false;
  if (after !== text.length && text.charCodeAt(after) !== 46 /* . */) return false;
  for (let index = 0; index < length; index++) {
    const code = key.charCodeAt(index);
    if (code !== text.charCodeAt(position + index)) return false;
    const keyChar =
      (code >= 97 && code <= 122) ||
      (code >= 65 && code <= 90) ||
      (code >= 48 && code <= 57) ||
      code === 95 ||
      code === 36 ||
      code === 45;
    if (!keyChar) return false;
  }
  return true;
}
