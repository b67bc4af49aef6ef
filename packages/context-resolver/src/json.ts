import type { JsonObject, JsonValue } from '@wharf/common';
import { ContextResolverError } from './context-resolver-error.js';

/**
 * True for a plain JSON object (not null, not an array).
 *
 * @example
 * ```ts
 * isJsonObject({ a: 1 }); // true
 * isJsonObject([1]); // false
 * ```
 */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A deep copy of a JSON value, checked on the way: object properties holding `undefined` are
 * left out (as JSON serialisation does); functions, symbols, bigints, `undefined` elsewhere,
 * non-finite numbers, class instances and cycles are rejected with an `INVALID_VALUE` error
 * naming where they are.
 *
 * @example
 * ```ts
 * const copy = toJsonValue({ user: { tags: ['a'] } }, 'result');
 * ```
 */
export function toJsonValue(value: unknown, where: string): JsonValue {
  return copy(value, where, []);
}

function copy(value: unknown, where: string, seen: unknown[]): JsonValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (Number.isFinite(value)) return value;
    throw new ContextResolverError('INVALID_VALUE', `${where}: ${value} is not a JSON number`);
  }
  if (typeof value !== 'object') {
    throw new ContextResolverError('INVALID_VALUE', `${where}: ${typeof value} is not a JSON value`);
  }
  if (seen.includes(value)) throw new ContextResolverError('INVALID_VALUE', `${where}: circular reference`);
  seen.push(value);
  let result: JsonValue;
  if (Array.isArray(value)) {
    result = value.map((item, index) => copy(item, `${where}[${index}]`, seen));
  } else {
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) {
      throw new ContextResolverError('INVALID_VALUE', `${where}: only plain objects are JSON`);
    }
    const object: Record<string, JsonValue> = {};
    for (const [key, item] of Object.entries(value)) {
      if (item !== undefined) setKey(object, key, copy(item, `${where}.${key}`, seen));
    }
    result = object;
  }
  seen.pop();
  return result;
}

/**
 * A deep copy of a value already known to be JSON (no checks).
 *
 * @example
 * ```ts
 * const copy = cloneJson({ a: [1, 2] });
 * ```
 */
export function cloneJson<TValue extends JsonValue>(value: TValue): TValue {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => cloneJson(item)) as unknown as TValue;
  const object: Record<string, JsonValue> = {};
  for (const key of Object.keys(value))
    setKey(object, key, cloneJson((value as JsonObject)[key] as JsonValue));
  return object as TValue;
}

/**
 * Deep-merges `source` into `target` in place: nested objects merge key by key, anything else
 * (arrays included) replaces what was there. `source` is copied, never aliased. `target` must be
 * the caller's own copy (e.g. from {@link cloneJson}), nested objects included.
 *
 * @example
 * ```ts
 * const target = { user: { name: 'Alex' } };
 * deepMergeInto(target, { user: { status: 'active' } }); // { user: { name: 'Alex', status: 'active' } }
 * ```
 */
export function deepMergeInto(
  target: Record<string, JsonValue>,
  source: JsonObject,
): Record<string, JsonValue> {
  for (const key of Object.keys(source)) {
    const incoming = source[key] as JsonValue;
    const existing = target[key];
    if (isJsonObject(existing) && isJsonObject(incoming))
      deepMergeInto(existing as Record<string, JsonValue>, incoming);
    else setKey(target, key, cloneJson(incoming));
  }
  return target;
}

/**
 * Sets an own property, also for the key `__proto__` (which plain assignment would turn into a
 * prototype change).
 *
 * @example
 * ```ts
 * setKey(object, '__proto__', 1); // Object.keys(object) includes '__proto__'
 * ```
 */
export function setKey(object: Record<string, JsonValue>, key: string, value: JsonValue): void {
  if (key === '__proto__') {
    Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    object[key] = value;
  }
}

/**
 * Reads an own property of a JSON object (never an inherited one such as `toString`).
 *
 * @example
 * ```ts
 * getKey({ a: 1 }, 'a'); // 1
 * getKey({}, 'toString'); // undefined
 * ```
 */
export function getKey(object: JsonObject, key: string): JsonValue | undefined {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}
