import { describe, expect, it } from 'vitest';
import { appendMessages, contextMessages, resolveReference } from './context.js';
import { ContextLog } from './context-log.js';
import { ContextResolverError } from './context-resolver-error.js';
import { resolveCall } from './resolve-call.js';
import type { ContextMessage } from './schemas.js';

describe('contexts', () => {
  it('appendMessages checks every message before appending any', () => {
    const plain: ContextMessage[] = [];
    const log = new ContextLog();
    const batch: ContextMessage[] = [
      { type: 'data', data: { a: 1 } },
      { type: 'data', data: { a: 1 }, _path: 'b' },
    ];
    expect(() => appendMessages(plain, batch)).toThrow(/message 1: data does not hold its _path "b"/);
    expect(() => appendMessages(log, batch)).toThrow(/message 1: data does not hold/);
    expect(plain).toEqual([]);
    expect(log.length).toBe(0);
    expect(appendMessages(plain, batch.slice(0, 1))).toEqual([0]);
    expect(contextMessages(plain)).toHaveLength(1);
  });

  it('ContextLog.from validates outside input and keeps other message keys', () => {
    const input: unknown = JSON.parse(
      '[{"type":"user","content":"hi"},{"type":"data","data":{"x":[1]},"_date":"2025-10-26T12:00:00Z"}]',
    );
    const log = ContextLog.from(input);
    expect(log.messages[0]).toEqual({ type: 'user', content: 'hi' });
    expect(log.resolve('†data.x.0')).toEqual({ found: true, value: 1 });
    expect(() => ContextLog.from([{ type: 'data', _date: 'noon' }])).toThrow(/messages\.0\._date/);
    expect(() => ContextLog.from([{ type: 'data', _outputMethod: 'add' }])).toThrow(
      /messages\.0\._outputMethod/,
    );
    expect(() => ContextLog.from({})).toThrow(ContextResolverError);
  });

  it('round-trips through JSON', () => {
    const log = new ContextLog([{ type: 'data', data: { a: [1] } }]);
    log.append({
      type: 'data',
      data: { a: 2 },
      _path: 'a',
      _outputMethod: 'push',
      _date: '2025-10-26T12:00:00Z',
    });
    const copy = ContextLog.from(JSON.parse(JSON.stringify(log)) as unknown);
    expect(copy.messages).toEqual(log.messages);
    expect(copy.resolve('†data.a')).toEqual({ found: true, value: [1, 2] });
  });

  it('keeps keys such as __proto__ as plain data', () => {
    const input: unknown = JSON.parse('[{"type":"data","data":{"__proto__":{"polluted":true}}}]');
    const log = ContextLog.from(input);
    expect(resolveReference(log, '†data.__proto__.polluted')).toEqual({ found: true, value: true });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(resolveReference(log, '†data.toString')).toEqual({ found: false });
  });

  it('rejects calls with malformed metadata', () => {
    let caught: unknown;
    try {
      resolveCall([], { _tool: 't', _instance: 5 as unknown as string });
    } catch (error) {
      caught = error;
    }
    expect(ContextResolverError.isInstance(caught) && caught.code).toBe('INVALID_CALL');
    expect((caught as Error).message).toMatch(/call\._instance/);
  });
});
