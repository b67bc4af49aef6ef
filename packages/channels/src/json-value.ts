import type { JsonValue } from '@wharf/common';
import { NotJsonError } from './channel-error.js';

/** Objects this module has validated, copied and frozen: never walked again. */
const sealed = new WeakSet<object>();

/**
 * Checks that `value` is plain JSON and returns a deeply frozen private copy of it, so
 * neither the writer nor a later reader can change what a channel holds. Primitives are
 * returned as they are (`-0` becomes `0`, as JSON would make it); a value sealed before is
 * returned without another walk.
 *
 * @param path - names the value in the error, e.g. `channel "plan"`.
 * @throws {@link NotJsonError} naming the path and the reason (a function, `undefined`,
 *   `NaN`, a class instance, a cycle, …).
 * @example
 * ```ts
 * const stored = sealJson({ steps: ['a', 'b'] }, 'channel "plan"');
 * Object.isFrozen(stored); // true
 * sealJson({ at: new Date() }, 'channel "plan"'); // throws NotJsonError at channel "plan".at
 * ```
 */
export function sealJson(value: unknown, path: string): JsonValue {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw new NotJsonError(path, `${value} is not a finite number`);
      return value === 0 ? 0 : value;
    case 'object':
      if (value === null) return null;
      if (sealed.has(value)) return value as JsonValue;
      return sealObject(value, { root: path, keys: [], ancestors: [] });
    default:
      throw new NotJsonError(path, describe(value));
  }
}

/**
 * Like {@link sealJson} for a list, but returns a new array that is not frozen (its items
 * are): for a channel that keeps a list it appends to, e.g. when restoring a snapshot.
 *
 * @throws {@link NotJsonError} naming the path and the reason.
 * @example
 * ```ts
 * const items = sealJsonList(['a', { b: 1 }], 'snapshot value "log"');
 * items.push('c'); // the list is the caller's; items[1] is frozen
 * ```
 */
export function sealJsonList(value: readonly unknown[], path: string): JsonValue[] {
  // Copy first (a fast bulk copy), then check the items in place.
  return sealItemsInPlace(value.slice(), path, value);
}

/**
 * Like {@link sealJsonList}, but checks and seals the items of `list` in place and returns
 * `list` itself, unfrozen: for a list nobody else holds, such as one just parsed from text.
 *
 * @throws {@link NotJsonError} naming the path and the reason.
 * @example
 * ```ts
 * const items = adoptJsonList(JSON.parse(text) as unknown[], 'snapshot value "log"');
 * ```
 */
export function adoptJsonList(list: unknown[], path: string): JsonValue[] {
  return sealItemsInPlace(list, path, list);
}

function sealItemsInPlace(items: unknown[], path: string, original: readonly unknown[]): JsonValue[] {
  let walk: Walk | undefined;
  for (let index = 0; index < items.length; index++) {
    const item = items[index];
    if (typeof item === 'string') continue;
    walk ??= { root: path, keys: [], ancestors: [original] };
    items[index] = sealChild(item, index, walk);
  }
  return items as JsonValue[];
}

/**
 * True when `value` was produced by {@link sealJson} (or is a primitive): it is frozen and
 * known to be plain JSON.
 *
 * @example
 * ```ts
 * isSealedJson(sealJson([1, 2], 'list')); // true
 * isSealedJson([1, 2]); // false
 * ```
 */
export function isSealedJson(value: unknown): boolean {
  return typeof value !== 'object' || value === null || sealed.has(value);
}

/** Where the walk is: the root's name, the keys down to the current value, its containers. */
interface Walk {
  readonly root: string;
  readonly keys: (string | number)[];
  readonly ancestors: object[];
}

function sealObject(value: object, walk: Walk): JsonValue {
  if (walk.ancestors.includes(value)) fail(walk, 'it refers back to itself (a cycle)');
  walk.ancestors.push(value);
  let copy: JsonValue;
  if (Array.isArray(value)) {
    const items: JsonValue[] = new Array(value.length);
    for (let index = 0; index < value.length; index++) {
      if (!(index in value)) {
        walk.keys.push(index);
        fail(walk, 'a hole in a sparse array');
      }
      items[index] = sealChild(value[index], index, walk);
    }
    copy = items;
  } else {
    if (!isPlainObject(value)) fail(walk, describe(value));
    const record: Record<string, JsonValue> = {};
    for (const key of Object.keys(value)) {
      const child = sealChild((value as Record<string, unknown>)[key], key, walk);
      if (key === '__proto__') {
        Object.defineProperty(record, key, {
          value: child,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      } else {
        record[key] = child;
      }
    }
    copy = record;
  }
  walk.ancestors.pop();
  Object.freeze(copy);
  sealed.add(copy);
  return copy;
}

function sealChild(value: unknown, key: string | number, walk: Walk): JsonValue {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (Number.isFinite(value)) return value === 0 ? 0 : value;
      walk.keys.push(key);
      return fail(walk, `${value} is not a finite number`);
    case 'object': {
      if (value === null) return null;
      if (sealed.has(value)) return value as JsonValue;
      walk.keys.push(key);
      const copy = sealObject(value, walk);
      walk.keys.pop();
      return copy;
    }
    default:
      walk.keys.push(key);
      return fail(walk, describe(value));
  }
}

function fail(walk: Walk, reason: string): never {
  const path = walk.keys.map((key) => (typeof key === 'number' ? `[${key}]` : `.${key}`)).join('');
  throw new NotJsonError(`${walk.root}${path}`, reason);
}

/** A plain object from any realm: its prototype is null or some realm's `Object.prototype`. */
function isPlainObject(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto === null || proto === Object.prototype) return true;
  if (typeof proto !== 'object' || Object.getPrototypeOf(proto) !== null) return false;
  const maker = (proto as { constructor?: unknown }).constructor;
  return typeof maker === 'function' && maker.name === 'Object';
}

function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'bigint') return 'a bigint (write it as a string or a number)';
  if (typeof value === 'symbol') return 'a symbol';
  const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
  return `an instance of ${typeof name === 'string' && name !== '' ? name : 'a class'} (only plain objects and arrays)`;
}
