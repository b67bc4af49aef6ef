import type { JsonObject, JsonValue } from '@wharf/common';
import { TypeMismatchError } from './context-resolver-error.js';
import { cloneJson, deepMergeInto, getKey, isJsonObject, setKey } from './json.js';
import { formatReference, isArrayIndex, type Reference } from './path.js';
import { isPathPrefix, type LocatedWrite, valueAt } from './writes.js';

/**
 * Outcome of resolving one reference: `found: false` means nothing in the context holds the
 * path, which is different from a stored `null` (`found: true, value: null`).
 *
 * @example
 * ```ts
 * const resolution: Resolution = context.resolve('†data.user.name');
 * if (resolution.found) console.log(resolution.value);
 * ```
 */
export type Resolution = { readonly found: true; readonly value: JsonValue } | { readonly found: false };

/**
 * True when a write touches `path`: it is at the path, above it, or below it.
 *
 * @example
 * ```ts
 * touches(['user'], ['user', 'name']); // true
 * touches(['user', 'status'], ['user', 'name']); // false
 * ```
 */
export function touches(writePath: readonly string[], path: readonly string[]): boolean {
  return isPathPrefix(writePath, path) || isPathPrefix(path, writePath);
}

/**
 * True when a write ends the newest-to-oldest search for `path`: a `set` at the path or above it.
 *
 * @example
 * ```ts
 * stopsSearch({ path: ['user'], method: 'set', value: {}, messageIndex: 0 }, ['user', 'name']); // true
 * ```
 */
export function stopsSearch(write: LocatedWrite, path: readonly string[]): boolean {
  return write.method === 'set' && isPathPrefix(write.path, path);
}

/**
 * Rebuilds the value at `reference` from the writes that touch it, given oldest → newest
 * (everything newer than, and including, the newest `set` at or above the path).
 *
 * @example
 * ```ts
 * foldWrites([{ path: ['tags'], method: 'set', value: ['a'], messageIndex: 0 },
 *   { path: ['tags'], method: 'push', value: 'b', messageIndex: 1 }], { kind: 'data', path: ['tags'] });
 * // { found: true, value: ['a', 'b'] }
 * ```
 */
export function foldWrites(writes: readonly LocatedWrite[], reference: Reference): Resolution {
  const target = reference.path;
  let base = target.length;
  for (const write of writes) if (isPathPrefix(write.path, target)) base = Math.min(base, write.path.length);
  const holder: JsonObject = {};
  const applied: LocatedWrite[] = [];
  for (const write of writes) {
    applyWrite(holder, write, { base, kind: reference.kind, applied });
    applied.push(write);
  }
  const root = getKey(holder, 'value');
  if (root === undefined) return { found: false };
  const value = valueAt(root, target.slice(base));
  return value === undefined ? { found: false } : { found: true, value };
}

interface FoldState {
  base: number;
  kind: string;
  applied: readonly LocatedWrite[];
}

function applyWrite(holder: JsonObject, write: LocatedWrite, state: FoldState): void {
  let container: JsonObject | JsonValue[] = holder;
  let key = 'value';
  for (let depth = state.base; depth < write.path.length; depth++) {
    const segment = write.path[depth] as string;
    let current = read(container, key);
    if (Array.isArray(current)) {
      if (!isArrayIndex(segment) || Number(segment) > current.length) {
        mismatch(write, state, `writes key "${segment}" inside the array`, write.path.slice(0, depth));
      }
    } else if (!isJsonObject(current)) {
      current = {};
      store(container, key, current);
    }
    container = current as JsonObject | JsonValue[];
    key = segment;
  }
  const existing = read(container, key);
  const value = write.value;
  switch (write.method) {
    case 'set':
      store(container, key, cloneJson(value));
      return;
    case 'merge':
      if (existing === undefined) store(container, key, cloneJson(value));
      else if (isJsonObject(existing)) deepMergeInto(existing, value as JsonObject);
      else mismatch(write, state, `merges an object into the ${describe(existing)}`, write.path);
      return;
    case 'push':
    case 'concat': {
      const items = write.method === 'push' ? [value] : (value as JsonValue[]);
      if (existing === undefined)
        store(
          container,
          key,
          items.map((item) => cloneJson(item)),
        );
      else if (Array.isArray(existing)) for (const item of items) existing.push(cloneJson(item));
      else
        mismatch(
          write,
          state,
          `${write.method === 'push' ? 'pushes' : 'concatenates'} onto the ${describe(existing)}`,
          write.path,
        );
      return;
    }
  }
}

function read(container: JsonObject | JsonValue[], key: string): JsonValue | undefined {
  return Array.isArray(container) ? container[Number(key)] : getKey(container, key);
}

function store(container: JsonObject | JsonValue[], key: string, value: JsonValue): void {
  if (Array.isArray(container)) container[Number(key)] = value;
  else setKey(container, key, value);
}

function describe(value: JsonValue): string {
  if (value === null) return 'null value';
  if (Array.isArray(value)) return 'array';
  return `${typeof value === 'object' ? 'object' : typeof value}`;
}

function mismatch(write: LocatedWrite, state: FoldState, reason: string, at: readonly string[]): never {
  let conflicting = write.messageIndex;
  for (let index = state.applied.length - 1; index >= 0; index--) {
    const earlier = state.applied[index] as LocatedWrite;
    if (touches(earlier.path, at)) {
      conflicting = earlier.messageIndex;
      break;
    }
  }
  throw new TypeMismatchError({
    path: formatReference({ kind: state.kind, path: write.path }),
    messageIndex: write.messageIndex,
    conflictingMessageIndex: conflicting,
    reason: `${reason} value`,
  });
}
