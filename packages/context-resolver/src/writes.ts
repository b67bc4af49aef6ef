import type { JsonValue } from '@wharf/common';
import { ContextResolverError } from './context-resolver-error.js';
import { isJsonObject } from './json.js';
import { parsePath } from './path.js';
import type { ContextMessage, OutputMethod } from './schemas.js';

/**
 * One write a message makes: `value` combined by `method` at `path` within its kind.
 *
 * @example
 * ```ts
 * const write: Write = { path: ['user', 'tags'], method: 'push', value: 'new' };
 * ```
 */
export interface Write {
  readonly path: readonly string[];
  readonly method: OutputMethod;
  readonly value: JsonValue;
}

/** A {@link Write} with the index of its message in the context. */
export interface LocatedWrite extends Write {
  readonly messageIndex: number;
}

/**
 * The writes a message makes, in the order the resolver sees them.
 *
 * - With `_path` (every output written by `applyOutput`): one write of the value found at that
 *   path inside `data`, using `_outputMethod` (default `set`). A `set` there replaces the whole
 *   subtree, so `set †data.user = { name }` hides an older `user.status`.
 * - Without `_path` and with `set` (a hand-written data message): every leaf is set on its own
 *   (plain objects are containers, anything else, arrays and `{}` included, is a leaf), so a
 *   message holding `user.status` leaves an older `user.name` visible.
 * - Without `_path` and with another method: one write of all of `data` at the root.
 *
 * A message without `data` writes nothing. Throws `INVALID_MESSAGE` for a malformed message.
 *
 * @example
 * ```ts
 * messageWrites({ type: 'data', data: { user: { name: 'Alex', status: 'active' } } });
 * // [{ path: ['user', 'name'], method: 'set', value: 'Alex' }, { path: ['user', 'status'], … }]
 * ```
 */
export function messageWrites(message: ContextMessage): Write[] {
  const data = message.data;
  if (data === undefined) return [];
  const method = message._outputMethod ?? 'set';
  if (typeof message._path === 'string') return [pathWrite(message, parsePath(message._path))];
  if (method !== 'set') return [checked({ path: [], method, value: data })];
  const writes: Write[] = [];
  collectLeaves(data, [], writes);
  return writes;
}

/**
 * The single write of a message with a `_path`, given that path already parsed into `path`.
 * Throws `INVALID_MESSAGE` when `data` does not hold the path or the value does not suit the
 * method.
 *
 * @example
 * ```ts
 * pathWrite({ type: 'data', data: { a: { b: 1 } }, _path: 'a.b' }, ['a', 'b']); // { path: ['a', 'b'], method: 'set', value: 1 }
 * ```
 */
export function pathWrite(message: ContextMessage, path: readonly string[]): Write {
  const value = message.data === undefined ? undefined : valueAt(message.data, path);
  if (value === undefined) {
    throw new ContextResolverError('INVALID_MESSAGE', `data does not hold its _path "${message._path}"`);
  }
  return checked({ path, method: message._outputMethod ?? 'set', value });
}

function collectLeaves(value: JsonValue, path: string[], writes: Write[]): void {
  if (isJsonObject(value)) {
    const keys = Object.keys(value);
    if (keys.length > 0) {
      for (const key of keys) collectLeaves(value[key] as JsonValue, [...path, key], writes);
      return;
    }
  }
  writes.push({ path, method: 'set', value });
}

function checked(write: Write): Write {
  checkWrite(write.method, write.value);
  return write;
}

/**
 * Throws `INVALID_MESSAGE` when `value` does not suit `method`: a merge needs an object, a
 * concat an array.
 *
 * @example
 * ```ts
 * checkWrite('concat', 'x'); // throws INVALID_MESSAGE: a concat needs an array value
 * ```
 */
export function checkWrite(method: OutputMethod, value: JsonValue): void {
  if (method === 'merge' && !isJsonObject(value)) {
    throw new ContextResolverError('INVALID_MESSAGE', 'a merge needs an object value');
  }
  if (method === 'concat' && !Array.isArray(value)) {
    throw new ContextResolverError('INVALID_MESSAGE', 'a concat needs an array value');
  }
}

/**
 * The value at `path` inside `value`, or `undefined` when absent. Objects are read by own key,
 * arrays by index.
 *
 * @example
 * ```ts
 * valueAt({ users: [{ name: 'Alex' }] }, ['users', '0', 'name']); // 'Alex'
 * ```
 */
export function valueAt(value: JsonValue, path: readonly string[]): JsonValue | undefined {
  let current: JsonValue | undefined = value;
  for (const segment of path) {
    if (Array.isArray(current)) {
      current = /^(?:0|[1-9][0-9]*)$/.test(segment) ? current[Number(segment)] : undefined;
    } else if (isJsonObject(current)) {
      current = Object.hasOwn(current, segment) ? current[segment] : undefined;
    } else {
      return undefined;
    }
    if (current === undefined) return undefined;
  }
  return current;
}

/**
 * True when `prefix` is an ancestor of (or equal to) `path`.
 *
 * @example
 * ```ts
 * isPathPrefix(['user'], ['user', 'name']); // true
 * ```
 */
export function isPathPrefix(prefix: readonly string[], path: readonly string[]): boolean {
  if (prefix.length > path.length) return false;
  for (let index = 0; index < prefix.length; index++) if (prefix[index] !== path[index]) return false;
  return true;
}
