import { describe, expect, it } from 'vitest';
import { ContextLog } from './context-log.js';
import { ContextResolverError } from './context-resolver-error.js';
import { parseReference } from './path.js';
import { scanResolve } from './scan-resolve.js';
import type { ContextMessage } from './schemas.js';

const out = (path: string, method: ContextMessage['_outputMethod'], data: unknown, type = 'data') =>
  ({ type, data, _path: path, _outputMethod: method }) as ContextMessage;

// `append` only checks; the path index catches up on the next resolve. These cases pin down what
// that deferral must not change: what a resolve sees, and which append throws.
describe('ContextLog: the index catches up on resolve', () => {
  it('a resolve right after 10,000 appends sees every one of them', () => {
    const log = new ContextLog();
    const messages: ContextMessage[] = [];
    for (let index = 0; index < 10_000; index++) {
      const group = `g${index % 10}`;
      const message =
        index % 3 === 0
          ? out(`${group}.items`, 'push', { [group]: { items: index } })
          : out(`${group}.last`, 'set', { [group]: { last: index } });
      messages.push(message);
      expect(log.append(message)).toBe(index);
    }
    for (const reference of ['†data.g0', '†data.g3.items', '†data.g9.last', '†data', '†data.g1.items.5']) {
      expect(log.resolve(reference), reference).toEqual(scanResolve(messages, parseReference(reference)));
    }
    const items = log.resolve('†data.g0.items');
    expect(items.found && (items.value as number[]).length).toBe(334);
    expect(log.resolve('†data.g9.last')).toEqual({ found: true, value: 9_989 });
  });

  it('appends after a resolve reach the next resolve, through either route of the catch-up', () => {
    const log = new ContextLog([out('user.name', 'set', { user: { name: 'Alex' } })]);
    expect(log.resolve('†data.user.name')).toEqual({ found: true, value: 'Alex' });
    // An object path of plain keys is indexed along the keys of `data`; an array on the way, or a
    // non-ASCII key, takes the general route (parse the path, walk the trie).
    log.append(out('user.name', 'set', { user: { name: 'Sam' } }));
    log.append(out('user.tags', 'set', { user: { tags: ['a'] } }));
    log.append(out('user.tags.1', 'set', { user: { tags: [null, 'b'] } }));
    log.append(out('user.prénom', 'set', { user: { prénom: 'S' } }));
    expect(log.resolve('†data.user')).toEqual({
      found: true,
      value: { name: 'Sam', tags: ['a', 'b'], prénom: 'S' },
    });
    log.appendAll([
      out('user.tags', 'push', { user: { tags: 'c' } }),
      out('user', 'merge', { user: { name: 'Kim' } }),
      { type: 'data', data: { user: { status: 'away' } } },
    ]);
    expect(log.resolve('†data.user')).toEqual({
      found: true,
      value: { name: 'Kim', tags: ['a', 'b', 'c'], prénom: 'S', status: 'away' },
    });
  });

  it('keeps instance and kind scopes apart when a run of appends switches between them', () => {
    const log = new ContextLog();
    log.append(out('count', 'set', { count: 1 }));
    log.append({ ...out('count', 'set', { count: 2 }), _instance: 'w1' });
    log.append(out('count', 'set', { count: 3 }, 'state'));
    log.append({ ...out('count', 'set', { count: 4 }, 'state'), _instance: 'w1' });
    log.append({ ...out('count', 'set', { count: 5 }), _instance: 'w2' });
    expect(log.resolve('†data.count')).toEqual({ found: true, value: 1 });
    expect(log.resolve('†data.count', { instance: 'w1' })).toEqual({ found: true, value: 2 });
    expect(log.resolve('†data.count', { instance: 'w2' })).toEqual({ found: true, value: 5 });
    expect(log.resolve('†state.count')).toEqual({ found: true, value: 3 });
    expect(log.resolve('†state.count', { instance: 'w1' })).toEqual({ found: true, value: 4 });
  });

  it('still refuses a bad message at append, not at the next resolve, whatever is pending', () => {
    const log = new ContextLog([out('a', 'set', { a: 1 })]);
    let caught: unknown;
    try {
      log.append(out('b', 'set', { a: 2 }));
    } catch (error) {
      caught = error;
    }
    expect(ContextResolverError.isInstance(caught) && caught.code).toBe('INVALID_MESSAGE');
    expect((caught as Error).message).toBe('message 1: data does not hold its _path "b"');
    expect(() => log.append(out('a', 'concat', { a: 'x' }))).toThrow(/message 1: a concat needs an array/);
    expect(() => log.appendAll([out('a', 'push', { a: 3 }), out('a', 'merge', { a: [] })])).toThrow(
      /message 2: a merge needs an object/,
    );
    expect(log.length).toBe(1);
    expect(log.resolve('†data.a')).toEqual({ found: true, value: 1 });
  });

  it('reads values from the messages: one changed after append is reported, not resolved wrongly', () => {
    const message = out('a.b', 'set', { a: { b: 1 } });
    const log = new ContextLog([message]);
    expect(log.resolve('†data.a.b')).toEqual({ found: true, value: 1 });
    (message.data as { a: Record<string, unknown> }).a = {};
    expect(() => log.resolve('†data.a.b')).toThrow(/message 0: data changed after append/);
  });
});
