import { describe, expect, it } from 'vitest';
import { ContextLog } from './context-log.js';
import { ContextResolverError, TypeMismatchError } from './context-resolver-error.js';
import { parseReference } from './path.js';
import { scanResolve } from './scan-resolve.js';
import type { ContextMessage } from './schemas.js';

// Every case runs against both the indexed log and the plain scan.
function both(messages: ContextMessage[]) {
  const log = new ContextLog(messages);
  return (reference: string, instance?: string) => {
    const options = instance === undefined ? {} : { instance };
    const indexed = capture(() => log.resolve(reference, options));
    const scanned = capture(() => scanResolve(messages, parseReference(reference), options));
    expect(indexed).toEqual(scanned);
    if (indexed instanceof Error) throw indexed;
    return indexed;
  };
}

function capture<TValue>(work: () => TValue): TValue | Error {
  try {
    return work();
  } catch (error) {
    return error as Error;
  }
}

const out = (path: string, method: ContextMessage['_outputMethod'], data: unknown, type = 'data') =>
  ({ type, data, _path: path, _outputMethod: method, _date: '2025-10-26T12:00:00Z' }) as ContextMessage;

describe('read-time resolution', () => {
  it('resolves the Alex example of the design note', () => {
    const context = [
      {
        type: 'data',
        data: { user: { name: 'Alex', status: 'active' } },
      },
      {
        type: 'data',
        data: { user: { status: 'inactive' } },
        _call: {
          _tool: 'updateUserStatus',
          newStatus: 'inactive',
          _outputPath: '†data.user.status',
        },
        _date: '2025-10-26T12:00:00Z',
      },
    ];
    const resolve = both(context);
    expect(resolve('†data.user.status')).toEqual({ found: true, value: 'inactive' });
    expect(resolve('†data.user.name')).toEqual({ found: true, value: 'Alex' });
    expect(resolve('†data.user')).toEqual({ found: true, value: { name: 'Alex', status: 'inactive' } });
  });

  it('set: last write wins and hides the whole older subtree', () => {
    const resolve = both([
      { type: 'data', data: { user: { name: 'Alex', status: 'active' } } },
      out('user', 'set', { user: { name: 'Bo' } }),
    ]);
    expect(resolve('†data.user')).toEqual({ found: true, value: { name: 'Bo' } });
    expect(resolve('†data.user.status')).toEqual({ found: false });
  });

  it('combines a child written later with its parent written earlier, and deeper children', () => {
    const resolve = both([
      out('user', 'set', { user: { name: 'Alex', address: { city: 'Oslo' } } }),
      out('user.address.zip', 'set', { user: { address: { zip: '0150' } } }),
      out('user.address.city', 'set', { user: { address: { city: 'Bergen' } } }),
    ]);
    expect(resolve('†data.user')).toEqual({
      found: true,
      value: { name: 'Alex', address: { city: 'Bergen', zip: '0150' } },
    });
    expect(resolve('†data.user.address.zip')).toEqual({ found: true, value: '0150' });
    expect(resolve('†data')).toEqual({
      found: true,
      value: { user: { name: 'Alex', address: { city: 'Bergen', zip: '0150' } } },
    });
  });

  it('merge: deep-merges objects oldest → newest on top of the last set', () => {
    const resolve = both([
      out('profile', 'set', { profile: { old: true } }),
      out('profile', 'set', { profile: { name: 'Alex', prefs: { theme: 'dark', lang: 'en' } } }),
      out('profile', 'merge', { profile: { prefs: { lang: 'nb' }, age: 30 } }),
      out('profile', 'merge', { profile: { prefs: { font: 'mono' }, tags: ['x'] } }),
    ]);
    expect(resolve('†data.profile')).toEqual({
      found: true,
      value: { name: 'Alex', prefs: { theme: 'dark', lang: 'nb', font: 'mono' }, age: 30, tags: ['x'] },
    });
    expect(resolve('†data.profile.prefs.lang')).toEqual({ found: true, value: 'nb' });
    expect(resolve('†data.profile.old')).toEqual({ found: false });
  });

  it('push and concat append to the array of the last set, and index into it', () => {
    const resolve = both([
      out('tags', 'set', { tags: ['a'] }),
      out('tags', 'push', { tags: 'b' }),
      out('tags', 'concat', { tags: ['c', 'd'] }),
      out('tags', 'push', { tags: ['e'] }),
    ]);
    expect(resolve('†data.tags')).toEqual({ found: true, value: ['a', 'b', 'c', 'd', ['e']] });
    expect(resolve('†data.tags.2')).toEqual({ found: true, value: 'c' });
    expect(resolve('†data.tags.4.0')).toEqual({ found: true, value: 'e' });
    expect(resolve('†data.tags.9')).toEqual({ found: false });
  });

  it('push onto nothing starts an array; a later set ends the collection', () => {
    const resolve = both([
      out('log', 'push', { log: 1 }),
      out('log', 'push', { log: 2 }),
      out('log', 'set', { log: [] }),
      out('log', 'push', { log: 3 }),
    ]);
    expect(resolve('†data.log')).toEqual({ found: true, value: [3] });
    const fresh = both([out('log', 'push', { log: 1 }), out('log', 'concat', { log: [2, 3] })]);
    expect(fresh('†data.log')).toEqual({ found: true, value: [1, 2, 3] });
  });

  it('a merge above the path reaches into it', () => {
    const resolve = both([
      { type: 'data', data: { user: { name: 'Alex' } } },
      out('', 'merge', { user: { status: 'busy' } }),
    ]);
    expect(resolve('†data.user.status')).toEqual({ found: true, value: 'busy' });
    expect(resolve('†data.user')).toEqual({ found: true, value: { name: 'Alex', status: 'busy' } });
  });

  it('tells an unresolved path from a stored null', () => {
    const resolve = both([{ type: 'data', data: { a: null } }]);
    expect(resolve('†data.a')).toEqual({ found: true, value: null });
    expect(resolve('†data.b')).toEqual({ found: false });
    expect(resolve('†data.a.b')).toEqual({ found: false });
  });

  it('kinds select message types', () => {
    const resolve = both([
      { type: 'state', data: { step: 1 } },
      { type: 'data', data: { step: 'data' } },
      { type: 'user', content: 'hello' },
      { type: 'input', data: { query: 'q' } },
    ]);
    expect(resolve('†state.step')).toEqual({ found: true, value: 1 });
    expect(resolve('†data.step')).toEqual({ found: true, value: 'data' });
    expect(resolve('†input.query')).toEqual({ found: true, value: 'q' });
    expect(resolve('†user.content')).toEqual({ found: false });
  });

  it('reads array elements by index: †state.users.0.name', () => {
    const resolve = both([{ type: 'state', data: { users: [{ name: 'Alex' }, { name: 'Bo' }] } }]);
    expect(resolve('†state.users.1.name')).toEqual({ found: true, value: 'Bo' });
    expect(resolve('†state.users.x')).toEqual({ found: false });
  });

  it('push onto a set string is a type mismatch naming the path and both indices', () => {
    const resolve = both([
      { type: 'data', data: { other: 1 } },
      out('tags', 'set', { tags: 'not a list' }),
      out('tags', 'push', { tags: 'x' }),
    ]);
    const error = capture(() => resolve('†data.tags'));
    expect(error).toBeInstanceOf(TypeMismatchError);
    expect(ContextResolverError.isInstance(error)).toBe(true);
    const mismatch = error as TypeMismatchError;
    expect(mismatch.code).toBe('TYPE_MISMATCH');
    expect(mismatch.path).toBe('†data.tags');
    expect(mismatch.messageIndex).toBe(2);
    expect(mismatch.conflictingMessageIndex).toBe(1);
    expect(mismatch.message).toMatch(/†data\.tags.*message 2.*string.*message 1/);
  });

  it('merge into a string and concat onto an object are type mismatches', () => {
    const merge = both([out('a', 'set', { a: 'text' }), out('a', 'merge', { a: { b: 1 } })]);
    expect(() => merge('†data.a')).toThrow(/merges an object into the string/);
    const concat = both([out('a', 'set', { a: { k: 1 } }), out('a', 'concat', { a: [1] })]);
    expect(() => concat('†data.a')).toThrow(/concatenates onto the object/);
  });

  it('writes into arrays by index (replace or append) and rejects other keys there', () => {
    const resolve = both([
      out('tags', 'set', { tags: ['a', 'b'] }),
      out('tags.0', 'set', { tags: { 0: 'A' } }),
      out('tags.2', 'set', { tags: { 2: 'c' } }),
    ]);
    expect(resolve('†data.tags')).toEqual({ found: true, value: ['A', 'b', 'c'] });
    const bad = both([out('tags', 'set', { tags: ['a'] }), out('tags.x', 'set', { tags: { x: 1 } })]);
    expect(() => bad('†data.tags')).toThrow(
      /†data\.tags\.x: message 1 writes key "x" inside the array value stored by message 0/,
    );
  });

  it('a set beneath a scalar replaces it', () => {
    const resolve = both([out('a', 'set', { a: 5 }), out('a.b', 'set', { a: { b: 1 } })]);
    expect(resolve('†data.a')).toEqual({ found: true, value: { b: 1 } });
  });

  it('returns copies: changing a result does not change the context', () => {
    const log = new ContextLog([{ type: 'data', data: { list: [1] } }]);
    const first = log.resolve('†data.list');
    if (first.found) (first.value as number[]).push(2);
    expect(log.resolve('†data.list')).toEqual({ found: true, value: [1] });
  });

  it('takes a _path message without data (it writes nothing), whether or not the path was written before', () => {
    const log = new ContextLog();
    expect(log.append({ type: 'data', _path: 'a' })).toBe(0);
    log.append({ type: 'data', data: { a: 1 }, _path: 'a' });
    expect(log.append({ type: 'data', _path: 'a' })).toBe(2);
    expect(log.resolve('†data.a')).toEqual({ found: true, value: 1 });
  });

  it('rejects malformed messages and appends nothing', () => {
    const log = new ContextLog();
    expect(() => log.append({ type: 'data', data: { a: 1 }, _path: 'b' })).toThrow(/message 0.*_path "b"/);
    expect(() => log.append({ type: 'data', data: 'x', _outputMethod: 'merge' })).toThrow(
      /merge needs an object/,
    );
    expect(log.length).toBe(0);
    expect(() => ContextLog.from([{ type: 'data' }, { data: 1 }])).toThrow(/messages\.1\.type/);
  });
});
